// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
)

// ReadinessGateMinVersion is the first shoot Kubernetes version the readiness gate works on: the
// ValidatingAdmissionPolicy API admissionregistration.k8s.io/v1 is GA and bound service account tokens carry the
// node name from 1.30 on (docs/readiness-gate.md). On older shoots the policy cannot even be created.
const ReadinessGateMinVersion = "1.30.0"

var readinessGateMin = version.MustParseGeneric(ReadinessGateMinVersion)

// readinessGate decides whether a shoot gets the readiness gate the operator asked for (wanted), and if not, why:
// only in the DaemonSet delivery mode (in the OperatingSystemConfig mode gardener-node-agent installs gVisor before
// kubelet starts, so there is no window to gate and no installer pod to set the label) and only on Kubernetes 1.30
// or later. An older (or unknown) version gets it off, so switching the gate on for a landscape never breaks its
// older shoots.
func readinessGate(wanted bool, mode delivery.Mode, shootVersion string) (bool, string) {
	if !wanted {
		return false, ""
	}
	if mode != delivery.DaemonSet {
		return false, fmt.Sprintf("the %s delivery mode installs gVisor before kubelet starts: no readiness gate needed", mode)
	}
	v, err := version.ParseGeneric(shootVersion)
	if err != nil {
		return false, fmt.Sprintf("the shoot's Kubernetes version %q is unknown, the gate needs %s or later", shootVersion, ReadinessGateMinVersion)
	}
	if v.LessThan(readinessGateMin) {
		return false, fmt.Sprintf("the shoot runs Kubernetes %s, the gate needs %s or later (ValidatingAdmissionPolicy v1, node name in bound tokens)",
			shootVersion, ReadinessGateMinVersion)
	}
	return true, ""
}
