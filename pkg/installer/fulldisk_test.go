// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// fullDiskChild is set, to the parent's mount namespace, in the test binary that TestFullDisk re-runs in a
// private mount namespace, where it may mount its tmpfs without changing the machine.
const fullDiskChild = "GVISOR_TEST_FULLDISK_PARENT_MNTNS"

// fullDiskStep is how much free space each failing run gets more than the previous one: a page, the unit a
// tmpfs allocates in, so that runs fail before a copy, at every point in the middle of one and at every small file.
// fullDiskPayload pads each stub binary to 16 pages.
const (
	fullDiskStep    = 4 << 10
	fullDiskPayload = 64 << 10
)

// TestFullDisk runs install and uninstall on a node whose host root is a small, real tmpfs, with free space from
// none upwards: before the run starts (the lock's holder record cannot be written), in the middle of a binary's
// copy, at runsc.toml, at config.toml's backup, at config.toml or the drop-in. Every run that fails must leave the
// host root byte-for-byte as it found it: no holder record, no temporary file, no kept link, no backup without its
// edit, no directory it created; and its error must say the disk is full. Root only: the tmpfs is mounted in a
// private mount namespace of a re-run of this test binary, so nothing is mounted on the machine.
func TestFullDisk(t *testing.T) {
	if os.Getenv(fullDiskChild) == "" {
		rerunInPrivateMounts(t)
		return
	}
	for _, c := range []struct{ name, config, lastWrite string }{
		{"config.toml edited", "configs/default-2.0.toml", "config.toml"},
		{"drop-in", "configs/gardener-v3.toml", "gvisor-runsc.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newFullDisk(t, readTestdata(t, c.config))
			failedAt := d.sweep(t, "install", installer.Install)
			want := []string{"runsc-metric-server", "containerd-shim-runsc-v1", "runsc", "runsc.toml", c.lastWrite}
			if c.lastWrite == "config.toml" {
				want = append(want, "config.toml.gvisor-installer.bak")
			}
			for _, w := range want {
				if !failedAt[w] {
					t.Errorf("no install failed at %s (failed at %v): the sweep does not cover that write", w, keys(failedAt))
				}
			}
			if !strings.Contains(d.logs.String(), "cannot record the lock's holder") {
				t.Errorf("the run on a disk without free space did not warn that it cannot record the lock's holder:\n%s", d.logs)
			}
			d.sweep(t, "uninstall", installer.Uninstall)
		})
	}
}

// rerunInPrivateMounts runs this test again in a new, private mount namespace and reports its output.
func rerunInPrivateMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts a small tmpfs in a private mount namespace")
	}
	ns, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fullDiskChild+"="+ns)
	// Go unshares the mount namespace in the child before exec and makes / recursively private there.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	t.Logf("in a private mount namespace:\n%s", out)
	if err != nil {
		t.Fatalf("the test in a private mount namespace failed: %v", err)
	}
}

// fullDisk is a node whose host root lives on its own small tmpfs, next to a filler file that takes whatever free
// space a run is not to have.
type fullDisk struct {
	*host

	fs     string   // the tmpfs' mount point: root and filler are in it
	filler *os.File // outside the host root, so it is not part of the tree compared
}

// newFullDisk mounts a tmpfs and creates a node on it with config.toml only: no bin dir, no conf.d, so that
// every directory the installer needs is created by the run. The release's binaries are padded to
// fullDiskPayload, so that a copy can fail half-written.
func newFullDisk(t *testing.T, config []byte) *fullDisk {
	t.Helper()
	if ns, _ := os.Readlink("/proc/self/ns/mnt"); ns == os.Getenv(fullDiskChild) {
		t.Fatalf("still in the machine's mount namespace %s: refusing to mount", ns)
	}
	mnt := t.TempDir()
	if err := syscall.Mount("gvisor-test-fulldisk", mnt, "tmpfs", 0, "size=8m,mode=0755"); err != nil {
		t.Fatalf("mounting a tmpfs on %s: %v", mnt, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	h := &host{root: filepath.Join(mnt, "root"), source: filepath.Join(t.TempDir(), "gvisor"), logs: &bytes.Buffer{}}
	h.write(t, "/etc/containerd/config.toml", config)
	m := nativeMachine()
	pad := strings.Repeat("x", fullDiskPayload)
	installertest.WriteRelease(t, h.source, map[string][]byte{
		"runsc":                          installertest.StubELF(m, "runsc "+pad),
		"containerd-shim-runsc-v1":       installertest.StubELF(m, "shim "+pad),
		"gvisor-bin/runsc-metric-server": installertest.StubELF(m, "metric-server "+pad),
	})
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return &fullDisk{host: h, fs: mnt, filler: f}
}

// setFree makes the filler take all of the tmpfs' free space but free bytes (a multiple of the page size).
func (d *fullDisk) setFree(t *testing.T, free int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(d.fs, &st); err != nil {
		t.Fatal(err)
	}
	fi, err := d.filler.Stat()
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size() + int64(st.Bavail)*st.Bsize - free
	if size > fi.Size() {
		// fallocate, unlike a truncate upwards, takes the pages on a tmpfs.
		err = syscall.Fallocate(int(d.filler.Fd()), 0, fi.Size(), size-fi.Size())
	} else {
		err = d.filler.Truncate(size)
	}
	if err != nil {
		t.Fatalf("filling %s to leave %d bytes free: %v", d.fs, free, err)
	}
	if err := syscall.Statfs(d.fs, &st); err != nil || int64(st.Bavail)*st.Bsize != free {
		t.Fatalf("%s has %d bytes free, want %d (%v)", d.fs, int64(st.Bavail)*st.Bsize, free, err)
	}
}

// failingFile matches the temporary file (".<name>.gvisor-installer-<n>") of the write a full disk failed.
var failingFile = regexp.MustCompile(`/\.([^/]+)\.gvisor-installer-[0-9]+: no space left on device`)

// sweep runs action with no free space, then with fullDiskStep more each time, until it succeeds. After every
// failure the host root must be as it was and the error must name the full filesystem. It returns the names of
// the files whose write failed.
func (d *fullDisk) sweep(t *testing.T, action string, run func(context.Context, installer.Options) (installer.Result, error)) map[string]bool {
	t.Helper()
	before := installertest.HashTree(t, d.root)
	failedAt := map[string]bool{}
	for free := int64(0); ; free += fullDiskStep {
		if free > 4*fullDiskPayload+16*fullDiskStep {
			t.Fatalf("%s still fails with %d bytes free", action, free)
		}
		d.setFree(t, free)
		res, err := run(context.Background(), d.options())
		if err == nil {
			t.Logf("%s with %d KiB free: %s", action, free>>10, res.Summary())
			// A success leaves its record: what the next release falls back to.
			if _, serr := os.Stat(filepath.Join(d.root, binDir, "gvisor/state.json")); action == "install" && serr != nil {
				t.Errorf("install with %d KiB free succeeded without its release record: %v", free>>10, serr)
			}
			return failedAt
		}
		t.Logf("%s with %d KiB free: %v", action, free>>10, err)
		for _, want := range []string{"is full (disk full", "no space left on device", "nothing on the node changed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s with %d KiB free: error does not say %q: %v", action, free>>10, want, err)
			}
		}
		if m := failingFile.FindStringSubmatch(err.Error()); m != nil {
			failedAt[m[1]] = true
		}
		if len(res.Changed) != 0 {
			t.Errorf("%s with %d KiB free: failed run reports changes %v", action, free>>10, res.Changed)
		}
		if after := installertest.HashTree(t, d.root); !reflect.DeepEqual(after, before) {
			t.Fatalf("%s with %d KiB free failed and changed the host root:\n%s", action, free>>10, treeDiff(before, after))
		}
	}
}

// treeDiff lists the entries of two HashTree results that differ.
func treeDiff(before, after map[string]string) string {
	var out []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			out = append(out, "gone:    "+p+" ("+b+")")
		} else if a != b {
			out = append(out, "changed: "+p+" ("+b+" -> "+a+")")
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "new:     "+p+" ("+a+")")
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
