package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// decoder decodes exactly the kinds our charts render, strictly: an unknown or duplicate field, or a kind
// outside this scheme, is an error. Built once; decoders are safe for concurrent use.
var decoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, nodev1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(fmt.Sprintf("building the render scheme: %v", err))
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}()

// decodeStrict decodes one rendered YAML document into its typed object.
func decodeStrict(doc []byte) (client.Object, error) {
	obj, _, err := decoder.Decode(doc, nil, nil)
	if err != nil {
		return nil, err
	}
	o, ok := obj.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not a Kubernetes object with metadata", obj)
	}
	return o, nil
}
