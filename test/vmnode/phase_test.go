// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"strings"
	"testing"
)

// TestBootRefusedOutsideTheVMPhase: under `make test` a VM node boots only in the VM phase, where nothing else runs
// beside the guest; elsewhere Boot fails before it takes the machine lock or starts QEMU, naming the phase and where
// a VM test belongs. A developer's own `go test` (no phase) boots anywhere.
func TestBootRefusedOutsideTheVMPhase(t *testing.T) {
	for phase, refused := range map[string]bool{"": false, "vm": false, "node": true, "fast": true} {
		t.Run("phase="+phase, func(t *testing.T) {
			t.Setenv(PhaseEnv, phase)
			err := checkPhase()
			if (err != nil) != refused {
				t.Fatalf("checkPhase in phase %q: %v, want refused %v", phase, err, refused)
			}
			if !refused {
				return
			}
			for _, want := range []string{`"vm" phase`, PhaseEnv + "=" + phase, "import test/vmnode"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q: %v", want, err)
				}
			}
			if _, err := Boot(context.Background(), Config{Disk: t.TempDir()}); err == nil || err.Error() != checkPhase().Error() {
				t.Errorf("Boot in phase %q: %v, want the phase's refusal", phase, err)
			}
		})
	}
}
