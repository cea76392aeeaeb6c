// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// scheme holds exactly the kinds our charts render; anything else is an error. Built once, read-only after.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, nodev1.AddToScheme, rbacv1.AddToScheme, admissionregistrationv1.AddToScheme,
		networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("building the render scheme: %v", err))
		}
	}
	return s
}()

// decodeStrict decodes one rendered YAML document into its typed object: duplicate keys, unknown fields and
// kinds outside the scheme are errors.
//
// It does what apimachinery's strict serializer does (YAMLToJSONStrict, then sigs.k8s.io/json's strict
// unmarshal), but parses the YAML once instead of twice: that parse is most of a render's cost.
func decodeStrict(doc []byte) (client.Object, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	var tm metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return nil, fmt.Errorf("reading apiVersion and kind: %w", err)
	}
	gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("kind %q of apiVersion %q is not one this renderer knows: %w", tm.Kind, tm.APIVersion, err)
	}
	strictErrs, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	if len(strictErrs) > 0 {
		return nil, runtime.NewStrictDecodingError(strictErrs)
	}
	o, ok := obj.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not a Kubernetes object with metadata", obj)
	}
	o.GetObjectKind().SetGroupVersionKind(gvk)
	return o, nil
}
