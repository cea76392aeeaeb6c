package containerruntime

import (
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/version"
)

// readinessGateMinVersion is the first shoot Kubernetes version the readiness gate works on: the
// ValidatingAdmissionPolicy API admissionregistration.k8s.io/v1 is GA and bound service account tokens carry the
// node name from 1.30 on (docs/readiness-gate.md). On older shoots the policy cannot even be created.
var readinessGateMinVersion = version.MustParseGeneric("1.30.0")

// readinessGate returns whether the shoot's charts render the readiness gate: the operator switched it on
// (--readiness-gate) and the shoot runs Kubernetes 1.30 or later. An older (or unknown) version renders it off and
// says why, so that switching the gate on for a landscape never breaks its older shoots.
func (a *Actuator) readinessGate(log logr.Logger, shootVersion string) bool {
	if !a.readinessGateEnabled {
		return false
	}
	v, err := version.ParseGeneric(shootVersion)
	if err != nil {
		log.Info("Readiness gate off for this shoot: its Kubernetes version is unknown, the gate needs 1.30 or later",
			"shootKubernetesVersion", shootVersion)
		return false
	}
	if v.LessThan(readinessGateMinVersion) {
		log.Info("Readiness gate off for this shoot: it needs Kubernetes 1.30 or later (ValidatingAdmissionPolicy v1, node name in bound tokens)",
			"shootKubernetesVersion", shootVersion)
		return false
	}
	return true
}
