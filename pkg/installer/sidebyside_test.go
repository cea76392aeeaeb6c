// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// flatFlags are the runsc flags an older installer (or the field's extension) left in a regular runsc.toml.
const flatFlags = "[runsc_config]\n  net-raw = \"true\"\n"

// TestSideBySideLifecycle walks a node from the flat layout (runsc, the shim and gvisor-bin/ directly in the bin
// dir, as older installers and the field's extension left them) through three releases and an uninstall: the flat
// release is adopted by hard links with its runsc flags; releases go to directories of their own; the node keeps
// the current and the last proven release plus any release a running sandbox's bundle names, and removes the
// rest; an unchanged re-run changes nothing; uninstall leaves nothing of gVisor.
func TestSideBySideLifecycle(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	h.write(t, binDir+"/runsc", []byte("flat runsc"))
	h.write(t, binDir+"/containerd-shim-runsc-v1", []byte("flat shim"))
	h.write(t, binDir+"/gvisor-bin/runsc-metric-server", []byte("flat metric server"))
	h.write(t, runscconfig.NodePath, []byte(flatFlags))
	o := h.options()
	install := func(step string) installer.Result {
		t.Helper()
		res, err := installer.Install(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		t.Logf("%s: %s", step, res.Summary())
		return res
	}

	install("v1 over the flat layout")
	adopted := onlyPrefixed(t, h, nodecontract.LegacyPrefix)
	if got := h.read(t, path.Join(binDir, nodecontract.ReleaseDir(adopted), "runsc")); string(got) != "flat runsc" {
		t.Errorf("adopted runsc = %q", got)
	}
	if got := h.read(t, runscconfig.ReleasePath(binDir, adopted)); !bytes.HasSuffix(got, []byte(flatFlags)) || !bytes.Contains(got, []byte("binary_name = ")) {
		t.Errorf("the adopted release's runsc.toml does not keep the node's flags:\n%s", got)
	}
	if h.exists(binDir + "/gvisor-bin") {
		t.Errorf("the flat layout's gvisor-bin/ is still in the bin dir")
	}
	for _, link := range []string{binDir + "/runsc", binDir + "/containerd-shim-runsc-v1", runscconfig.NodePath, binDir + "/" + nodecontract.CurrentLink} {
		if st, err := os.Lstat(h.path(link)); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is not a link (%v)", link, err)
		}
	}
	if got := h.read(t, binDir+"/runsc"); !bytes.HasSuffix(got, []byte("runsc v1")) {
		t.Errorf("runsc on PATH = %q, want v1's", got)
	}
	v1 := current(t, h)

	// A running sandbox of the adopted release keeps it on the node.
	bundle := h.path(releases.TaskDir + "/k8s.io/sandbox-1/state.json")
	h.write(t, releases.TaskDir+"/k8s.io/sandbox-1/state.json", []byte(`{"options":{"binaryName":"`+path.Join(binDir, nodecontract.ReleaseDir(adopted), "runsc")+`"}}`))
	stubRelease(t, h.source, "v2")
	install("v2")
	v2 := current(t, h)
	if got := releaseIDs(t, h); !sameSet(got, []string{adopted, v1, v2}) {
		t.Errorf("releases after v2 = %v, want the adopted one (in use), v1 and v2", got)
	}
	if err := os.Remove(bundle); err != nil {
		t.Fatal(err)
	}
	stubRelease(t, h.source, "v3")
	install("v3")
	v3 := current(t, h)
	if got := releaseIDs(t, h); !sameSet(got, []string{v2, v3}) {
		t.Errorf("releases after v3 = %v, want v2 (the last proven before) and v3", got)
	}
	if res := install("unchanged re-run"); len(res.Changed) != 0 {
		t.Errorf("an unchanged re-run changed %v", res.Changed)
	}

	if _, err := installer.Uninstall(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{binDir + "/" + nodecontract.GVisorDir, binDir + "/runsc", binDir + "/containerd-shim-runsc-v1", runscconfig.NodePath} {
		if _, err := os.Lstat(h.path(p)); err == nil {
			t.Errorf("uninstall left %s", p)
		}
	}
}

func current(t *testing.T, h *host) string {
	t.Helper()
	target, err := os.Readlink(h.path(path.Join(binDir, nodecontract.CurrentLink)))
	if err != nil {
		t.Fatal(err)
	}
	return nodecontract.IDOfTarget(target)
}

func releaseIDs(t *testing.T, h *host) []string {
	t.Helper()
	entries, err := os.ReadDir(h.path(path.Join(binDir, nodecontract.ReleasesDir)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

func onlyPrefixed(t *testing.T, h *host, prefix string) string {
	t.Helper()
	var found []string
	for _, id := range releaseIDs(t, h) {
		if strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("releases with prefix %s: %v, want one", prefix, found)
	}
	return found[0]
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return reflect.DeepEqual(a, b)
}
