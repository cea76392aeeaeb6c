// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// mount is one mount of a private mount namespace: Source bind-mounted onto Target, or a tmpfs on Target when
// Source is "".
type mount struct{ Source, Target string }

// privateMountScript mounts each "source target" pair ("tmpfs" as source: a tmpfs) and execs the rest. mount -n,
// because mount(8) otherwise records its mounts in /run/mount/utab, creating /run/mount on the machine.
const privateMountScript = `set -e
while [ "$1" != "--" ]; do
  if [ "$1" = tmpfs ]; then mount -n -t tmpfs gvisor-test-nodeagent "$2"; else mount -n --bind "$1" "$2"; fi
  shift 2
done
shift
exec "$@"
`

// inPrivateMounts returns a command that runs argv in a new, private mount namespace (`unshare -m`) with mounts
// in place, so that code reading fixed node paths (/etc/containerd, /var/lib/gardener-node-agent) sees the node
// root's directories and writes nothing to the machine. The namespace and its mounts end with the command. Every
// Target must exist (ensureMountPoint).
func inPrivateMounts(ctx context.Context, mounts []mount, argv ...string) *exec.Cmd {
	args := []string{"-m", "--propagation", "private", "/bin/sh", "-c", privateMountScript, "gvisor-test-nodeagent"}
	for _, m := range mounts {
		src := m.Source
		if src == "" {
			src = "tmpfs"
		}
		args = append(args, src, m.Target)
	}
	args = append(args, "--")
	return exec.CommandContext(ctx, "unshare", append(args, argv...)...)
}

// ensureMountPoint makes sure dir exists on the machine for a mount, leasing it for the test (package mountpoint):
// a directory it had to create is removed once no test process uses it.
func ensureMountPoint(t testing.TB, dir string) {
	t.Helper()
	lease, err := mountpoint.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lease.Release(); err != nil {
			t.Error(err)
		}
	})
}
