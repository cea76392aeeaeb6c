// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// unpullable is a sandbox image that exists nowhere: a release that pulls it before it looks at the runtime
// handler (1.x) fails on loopback, so the test never reaches out to a registry.
const unpullable = "127.0.0.1:1/gvisor-test/pause:none"

// TestProveFailsWithoutRunsc: on real containerd daemons that have no runsc handler, Prove fails with containerd's
// own words and leaves no sandbox behind. containerd 2.x looks the handler up first ("no runtime for "runsc" is
// configured"); 1.x first makes sure the sandbox image is there, and says why it is not.
func TestProveFailsWithoutRunsc(t *testing.T) {
	for _, c := range installertest.Containerds(t) {
		t.Run(c.String(), func(t *testing.T) {
			root, err := os.MkdirTemp("", "sb-") // short: the socket path has a 108-byte limit
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(root) })
			config := filepath.Join(root, "config.toml")
			data := "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"" + unpullable + "\"\n"
			if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			d := installertest.StartDaemon(t, c, config, root)
			ctx := context.Background()

			start := time.Now()
			_, err = sandbox.CRI{Socket: d.Socket, Timeout: 20 * time.Second}.Prove(ctx)
			if err == nil {
				t.Fatal("a sandbox with handler runsc started on a containerd without runsc")
			}
			want := `no runtime for "runsc" is configured`
			if c.Major == 1 {
				want = unpullable
			}
			for _, w := range []string{want, `runtime handler "runsc"`, d.Socket} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
			t.Logf("%s after %s: %v", c, time.Since(start).Round(time.Millisecond), err)
			if n := sandboxes(t, d.Socket); n != 0 {
				t.Errorf("%d sandboxes left behind", n)
			}
			// The proof sandbox's log directory lies next to the socket, in containerd's run directory.
			run := filepath.Dir(d.Socket)
			if entries, err := os.ReadDir(run); err != nil || slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "gvisor-installer" }) {
				t.Errorf("the proof's log directory is left behind in %s (%v): %v", run, err, entries)
			}
		})
	}
}

// TestCgroupParentFollowsTheDriver: the proof sandbox goes into the kubelet's BestEffort cgroup in the driver each
// real containerd reports (CRI RuntimeConfig on 2.x, the default runtime's SystemdCgroup option on 1.x).
func TestCgroupParentFollowsTheDriver(t *testing.T) {
	for _, c := range installertest.Containerds(t) {
		for systemd, want := range map[bool]string{false: "/kubepods/besteffort", true: "kubepods-besteffort.slice"} {
			t.Run(fmt.Sprintf("%s/SystemdCgroup=%v", c, systemd), func(t *testing.T) {
				root, err := os.MkdirTemp("", "sb-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = os.RemoveAll(root) })
				config := filepath.Join(root, "config.toml")
				data := "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n" +
					"[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n  SystemdCgroup = " + fmt.Sprint(systemd) + "\n"
				if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				d := installertest.StartDaemon(t, c, config, root)
				got, err := sandbox.CgroupParentOf(context.Background(), d.Socket)
				if err != nil || got != want {
					t.Errorf("cgroup parent %q, %v; want %q", got, err, want)
				}
			})
		}
	}
}

// TestProveWithoutContainerd: no CRI socket is an error naming it, within the timeout.
func TestProveWithoutContainerd(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "containerd.sock")
	start := time.Now()
	_, err := sandbox.CRI{Socket: sock, Timeout: 2 * time.Second}.Prove(context.Background())
	if err == nil || !strings.Contains(err.Error(), sock) {
		t.Fatalf("want an error naming %s, got %v", sock, err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %s, bound is 2s", elapsed)
	}
}

func sandboxes(t *testing.T, socket string) int {
	t.Helper()
	conn, err := verify.Dial(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	list, err := runtimeapi.NewRuntimeServiceClient(conn).ListPodSandbox(context.Background(), &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.GetItems())
}
