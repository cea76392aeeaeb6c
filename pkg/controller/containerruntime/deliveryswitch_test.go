// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestUnlabelledOSCHint: an OSC carrying an entry of ours without the webhook's label (which the DaemonSet mode's
// registration selects on) gets the kubectl command that labels it; a labelled one gets nothing.
func TestUnlabelledOSCHint(t *testing.T) {
	osc := gardenerfixtures.OperatingSystemConfigs(shootOf("1.33.4", gardenerfixtures.Worker("pool-a", gardenerfixtures.GVisor(nil))))["pool-a"].Reconcile
	hint := unlabelled(osc)
	for _, want := range []string{"kubectl label operatingsystemconfig -n " + osc.Namespace + " " + osc.Name, oscwebhook.LabelEntry + "=true"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q does not contain %q", hint, want)
		}
	}
	osc.Labels = map[string]string{oscwebhook.LabelEntry: "true"}
	if hint := unlabelled(osc); hint != "" {
		t.Errorf("labelled OSC: want no hint, got %q", hint)
	}
}
