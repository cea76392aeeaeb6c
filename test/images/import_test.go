// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestImportIntoContainerd: the archives are what a real containerd (2.2 and 2.4, the node harness's) imports with
// `ctr -n k8s.io images import`, under the reference and with the manifest digest of the build, and the imported
// installation image runs its installer (in the check mode) through containerd and runc.
func TestImportIntoContainerd(t *testing.T) {
	built := images.Build(t, images.Options{})
	for _, prefix := range []string{"2.2", "2.4"} {
		t.Run(prefix, func(t *testing.T) {
			c := installertest.Release(t, prefix)
			dir := t.TempDir()
			// Every socket below the test's directory: no two daemons share one (the ttrpc one included).
			config := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(config, []byte("version = 3\n[ttrpc]\n  address = \""+filepath.Join(dir, "ttrpc.sock")+"\"\n"+
				"[debug]\n  address = \""+filepath.Join(dir, "debug.sock")+"\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			d := installertest.StartDaemon(t, c, config, filepath.Join(dir, "host"))
			ctr := func(args ...string) string {
				t.Helper()
				out, err := exec.Command(filepath.Join(c.Dir, "ctr"), append([]string{"--address", d.Socket, "-n", "k8s.io"}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("ctr %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			for _, img := range built.Images {
				ctr("images", "import", img.Archive)
			}
			list := ctr("images", "ls")
			for _, img := range built.Images {
				if !containsLine(list, img.Ref, img.Digest) {
					t.Errorf("containerd does not list %s with %s:\n%s", img.Ref, img.Digest, list)
				}
			}
			inst := built.Installation()
			// The IO fifos in a directory of the test's: the daemon has its own /run (installertest's Daemon), so
			// ctr's default /run/containerd/fifo is not the one containerd sees.
			out := ctr("run", "--rm", "--fifo-dir", t.TempDir(), "--env", argcheck.Env+"=1", inst.Ref, "check-"+prefix, "/gvisor-installer", "install", "--source=/opt/gvisor")
			if !strings.Contains(out, argcheck.OK) {
				t.Errorf("the imported installation image did not run its installer:\n%s", out)
			}
		})
	}
}

func containsLine(out string, words ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			return true
		}
	}
	return false
}
