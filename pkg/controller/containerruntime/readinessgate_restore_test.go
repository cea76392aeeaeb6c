// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// TestMigrationState: status.state as gardenlet carries it decodes; none is the zero state; anything else is an
// error naming the field and what it should be.
func TestMigrationState(t *testing.T) {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	if st, err := readMigrationState(cr); err != nil || st.ReadinessGate {
		t.Errorf("no state: %+v %v", st, err)
	}
	cr.Status.State = &runtime.RawExtension{Raw: []byte(`{"readinessGate":true}`)}
	if st, err := readMigrationState(cr); err != nil || !st.ReadinessGate {
		t.Errorf("gate on: %+v %v", st, err)
	}
	cr.Status.State = &runtime.RawExtension{Raw: []byte(`"on"`)}
	if _, err := readMigrationState(cr); err == nil || !strings.Contains(err.Error(), "status.state") || !strings.Contains(err.Error(), "readinessGate") {
		t.Errorf("bad state: %v", err)
	}
}

// TestUnion: the adoption deploys the gate-off render's objects, plus the gate-on render's objects it lacks.
func TestUnion(t *testing.T) {
	got := union(map[string][]byte{"ds": []byte("on"), "sa": []byte("sa")}, map[string][]byte{"ds": []byte("off"), "cm": []byte("cm")})
	if len(got) != 3 || string(got["ds"]) != "off" || string(got["sa"]) != "sa" || string(got["cm"]) != "cm" {
		t.Errorf("union = %q", got)
	}
}
