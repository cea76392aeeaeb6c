// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"fmt"
	"os"
)

// PhaseEnv names the phase of `make test` a test process runs in (hack/phases.sh). Unset (a developer's own
// `go test`), a VM boots wherever it is asked to.
const PhaseEnv = "GVISOR_TEST_PHASE"

// vmPhase is the phase in which `make test` runs the VM tests alone: an emulated guest starved by other packages'
// tests stalls (its timer interrupts late, its ssh sessions end), so it never boots beside them.
const vmPhase = "vm"

// checkPhase refuses a boot in any phase of `make test` but the VM phase, naming what selects a VM test there: a
// test the selection missed would otherwise run the guest beside other packages and fail by starvation, not by name.
func checkPhase() error {
	phase := os.Getenv(PhaseEnv)
	if phase == "" || phase == vmPhase {
		return nil
	}
	return fmt.Errorf("a VM node boots only in make test's %q phase, not in %s=%s: hack/phases.sh runs there the "+
		"top-level tests of the _test.go files that import test/vmnode; move this test into such a file", vmPhase, PhaseEnv, phase)
}
