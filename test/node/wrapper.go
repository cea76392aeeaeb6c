// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"fmt"
	"os"
	"path/filepath"
)

// ShimName is the gVisor shim's binary name; containerd finds it on its PATH.
const ShimName = "containerd-shim-runsc-v1"

// WriteShimWrapper writes the test-only shim wrapper (see the package doc) into dir (first on containerd's PATH).
// The real, unmodified shim (realShim, the one the installer put into the bin dir) runs behind it. For the
// `start` action only (the last argument), the real shim runs in a private mount namespace in which its own
// /proc/PID/uid_map reads "0 0 4294967294": the shim then believes it runs in a user namespace and ignores the
// EACCES of lowering its oom_score_adj to -999, which this machine (no CAP_SYS_RESOURCE) refuses. Real nodes run
// containerd as full root and need nothing of this. The wrapper must print nothing: containerd reads the shim's
// stdout for its bootstrap reply.
func WriteShimWrapper(dir, realShim string) error {
	fake := filepath.Join(dir, "fake_uid_map")
	if err := os.WriteFile(fake, []byte("         0          0 4294967294\n"), 0o644); err != nil {
		return err
	}
	script := fmt.Sprintf(`#!/bin/sh
# Test-only wrapper of the gVisor shim (test/node): see WriteShimWrapper.
REAL=%q
for last in "$@"; do :; done
if [ "$last" = "start" ]; then
  exec unshare -m --propagation unchanged /bin/sh -c 'mount --bind %q /proc/$$/uid_map && exec "$0" "$@"' "$REAL" "$@"
fi
exec "$REAL" "$@"
`, realShim, fake)
	return os.WriteFile(filepath.Join(dir, ShimName), []byte(script), 0o755)
}
