// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// TestUnlabelledOSCHint: an OSC carrying an entry of ours without the webhook's label (which the DaemonSet mode's
// registration selects on) gets the kubectl command that labels it; a labelled one gets nothing.
func TestUnlabelledOSCHint(t *testing.T) {
	osc := &extensionsv1alpha1.OperatingSystemConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "shoot--p--s", Name: "pool-a-reconcile"}}
	hint := unlabelled(osc)
	for _, want := range []string{"kubectl label operatingsystemconfig -n shoot--p--s pool-a-reconcile", oscwebhook.LabelEntry + "=true"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q does not contain %q", hint, want)
		}
	}
	osc.Labels = map[string]string{oscwebhook.LabelEntry: "true"}
	if hint := unlabelled(osc); hint != "" {
		t.Errorf("labelled OSC: want no hint, got %q", hint)
	}
}
