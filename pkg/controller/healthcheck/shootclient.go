// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsconfigv1alpha1 "github.com/gardener/gardener/extensions/pkg/apis/config/v1alpha1"
	"github.com/gardener/gardener/extensions/pkg/util"
)

// shootScheme holds the only kinds the checks read in the shoot.
var shootScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := appsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// shootMapper is a static REST mapper for those kinds: the library's default (a dynamic mapper) runs API
// discovery against the shoot on every check of every ContainerRuntime.
func shootMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	m.Add(corev1.SchemeGroupVersion.WithKind("Node"), meta.RESTScopeRoot)
	m.Add(corev1.SchemeGroupVersion.WithKind("Secret"), meta.RESTScopeNamespace) // the pool's OSC secret (OSC delivery mode)
	m.Add(appsv1.SchemeGroupVersion.WithKind("DaemonSet"), meta.RESTScopeNamespace)
	return m
}

// newShootClient is the shoot client the library's actuator builds for a TargetClient check (the gardener secret
// in the shoot namespace), built per call so that concurrent checks of different shoots never share one.
func newShootClient(ctx context.Context, seed client.Client, namespace string) (client.Reader, error) {
	_, c, err := util.NewClientForShoot(ctx, seed, namespace, client.Options{Scheme: shootScheme, Mapper: shootMapper()}, extensionsconfigv1alpha1.RESTOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the client of the shoot of namespace %s (secret gardener or gardener-internal): %w", namespace, err)
	}
	return c, nil
}
