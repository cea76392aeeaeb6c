// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// LabelEntry marks an OSC that carries an entry of ours at PluginPath (add or remove). The webhook keeps it true:
// it sets the label where the mutated OSC carries an entry and deletes it where not. gardenlet writes OSCs with a
// merge patch that sets only its own labels (pkg/component/extensions/operatingsystemconfig), so the label
// survives its updates.
//
// Why: in the DaemonSet mode the webhook only has to see the OSCs that carry an entry of ours (to replace it by the
// remove entry and to drop that once every node applied it), and ObjectSelector(delivery.DaemonSet) selects on this
// label. The API server matches an object selector against the old and the new object, so the update that drops
// the label is still sent; after it, nothing of that OSC is. With failurePolicy Fail, a webhook no replica answers
// then blocks only the writes of OSCs in the middle of a switch back, not every pool's OSC on the seed.
const LabelEntry = "gvisor.runtime.extensions.gardener.cloud/osc-entry"

// syncEntryLabel sets LabelEntry on osc if it carries an entry of ours and deletes it if not; an OSC without the
// label and without an entry is left as it is (no empty labels map).
func syncEntryLabel(osc *extensionsv1alpha1.OperatingSystemConfig) {
	if hasOurPlugin(osc) {
		if osc.Labels == nil {
			osc.Labels = map[string]string{}
		}
		osc.Labels[LabelEntry] = "true"
		return
	}
	delete(osc.Labels, LabelEntry)
}
