// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscstate

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// oscDecoder decodes the OperatingSystemConfig in a pool's node-agent secret as gardener-node-agent does
// (nodeagent.OSCDecoder of pkg/nodeagent: a universal deserializer of the extensions API). It is our own, not
// node-agent's variable, because importing pkg/nodeagent links the kubelet configuration API, component-base's
// feature gates and metrics registry and afero into the controller, which initialises them at every start and
// never runs them (BENCHMARKS.md "Seed scale", "Two dependency cuts"); node-agent's scheme adds only the kubelet
// configuration, which no OSC field decodes into. decode_test.go checks that both decode node-agent's input
// alike. Read-only after initialisation.
var oscDecoder = newOSCDecoder()

func newOSCDecoder() runtime.Decoder {
	scheme := runtime.NewScheme()
	utilruntime.Must(extensionsv1alpha1.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme).UniversalDeserializer()
}
