// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscstate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/nodeagent"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestDecodesAsNodeAgent: the OSC secrets gardenlet writes (Gardener's own OperatingSystemConfigSecret, from the
// webhook's golden OSCs, under the pool's name and key) decode with oscDecoder exactly as with node-agent's decoder, and are classified by what
// the webhook put in.
func TestDecodesAsNodeAgent(t *testing.T) {
	for golden, want := range map[string]Entry{"gvisor-pool.yaml": Add, "gvisor-removed.yaml": Remove} {
		t.Run(golden, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "webhook", "operatingsystemconfig", "testdata", golden))
			if err != nil {
				t.Fatal(err)
			}
			in := &extensionsv1alpha1.OperatingSystemConfig{}
			if err := yaml.UnmarshalStrict(raw, in); err != nil {
				t.Fatal(err)
			}
			secret := gardenerfixtures.OSCSecret(nil, in, osctest.GardenletOSCs(osctest.GVisorPool).SecretName, osctest.GVisorPool)
			data := secret.Data[nodeagentconfigv1alpha1.DataKeyOperatingSystemConfig]
			ours, theirs := &extensionsv1alpha1.OperatingSystemConfig{}, &extensionsv1alpha1.OperatingSystemConfig{}
			if err := runtime.DecodeInto(oscDecoder, data, ours); err != nil {
				t.Fatalf("oscDecoder: %v", err)
			}
			if err := runtime.DecodeInto(nodeagent.OSCDecoder, data, theirs); err != nil {
				t.Fatalf("node-agent's decoder: %v", err)
			}
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("oscDecoder decodes differently from node-agent (-node-agent +ours):\n%s", diff)
			}
			if len(ours.Spec.Files) == 0 || ours.Spec.CRIConfig == nil {
				t.Fatalf("decoded OSC lost its files or criConfig: %+v", ours.Spec)
			}
			if got := Classify(ours).Entry; got != want {
				t.Errorf("Classify: got entry %q, want %q", got, want)
			}
		})
	}
}
