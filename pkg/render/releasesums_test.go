// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestReleaseSums: install mode passes the installer the release sums of the pool's
// architecture (all of them when it is unknown) in the runsc ConfigMap, as SHA512SUMS.<arch>, and runs it with
// --release-sums; an architecture without sums is an error naming it; the operator's sums replace the embedded
// ones; uninstall mode passes none.
func TestReleaseSums(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	embedded, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		t.Fatal(err)
	}
	for arch, want := range map[string][]string{"": {"amd64", "arm64"}, "amd64": {"amd64"}, "arm64": {"arm64"}} {
		v := poolValues
		v.Architecture = arch
		m, err := r.Installation(v)
		if err != nil {
			t.Fatalf("arch %q: %v", arch, err)
		}
		cm := runscConfigMap(t, m)
		var got []string
		for k, text := range cm.Data {
			if a, ok := strings.CutPrefix(k, "SHA512SUMS."); ok {
				got = append(got, a)
				if w, _ := embedded.SHA512SUMS(a); text != w {
					t.Errorf("arch %q: %s = %q, want %q", arch, k, text, w)
				}
			}
		}
		if strings.Join(sortedCopy(got), ",") != strings.Join(want, ",") {
			t.Errorf("arch %q: ConfigMap carries sums for %v, want %v", arch, got, want)
		}
		if !hasArg(daemonSets(m)[0], "--release-sums=/etc/gvisor-installer") {
			t.Errorf("arch %q: the installer does not get --release-sums", arch)
		}
	}

	v := poolValues
	v.Architecture = "s390x"
	if _, err := r.Installation(v); err == nil || !strings.Contains(err.Error(), `"s390x" has no gVisor release sums`) {
		t.Errorf("unknown architecture: want an error naming it, got %v", err)
	}

	sum := strings.Repeat("0b", 64)
	own, err := r.WithReleaseSums(imagevector.ReleaseSums{Version: "own", Architectures: map[string]map[string]string{
		"amd64": {"runsc": sum, "containerd-shim-runsc-v1": sum}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := own.Installation(poolValues)
	if err != nil {
		t.Fatal(err)
	}
	if cm := runscConfigMap(t, m); cm.Data["SHA512SUMS.amd64"] != sum+"  containerd-shim-runsc-v1\n"+sum+"  runsc\n" || cm.Data["SHA512SUMS.arm64"] != "" {
		t.Errorf("operator's sums not rendered: %v", cm.Data)
	}
	if _, err := r.WithReleaseSums(imagevector.ReleaseSums{Version: "x"}); err == nil {
		t.Error("WithReleaseSums accepts sums without architectures")
	}

	v = poolValues
	v.Mode = render.ModeUninstall
	m, err = r.Installation(v)
	if err != nil {
		t.Fatal(err)
	}
	if ds := daemonSets(m)[0]; hasArg(ds, "--release-sums=/etc/gvisor-installer") || ds.Spec.Template.Annotations["checksum/release-sums"] != "" {
		t.Error("uninstall mode passes release sums")
	}
}

func runscConfigMap(t *testing.T, m *render.Manifests) *corev1.ConfigMap {
	t.Helper()
	for _, o := range m.Objects() {
		if cm, ok := o.(*corev1.ConfigMap); ok && strings.HasSuffix(cm.Name, "-runsc") {
			return cm
		}
	}
	t.Fatal("no runsc ConfigMap")
	return nil
}

func hasArg(ds *appsv1.DaemonSet, arg string) bool {
	return slices.Contains(installerContainer(ds).Command, arg)
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
