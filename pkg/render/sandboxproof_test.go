// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestSandboxProofSetting: the installer's sandbox proof is on unless the operator switches it off, for one pool
// (InstallationValues) and for a whole shoot (ShootOptions); the uninstall mode has no proof to switch.
func TestSandboxProofSetting(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	runscToml := "[runsc_config]\n  net-raw = \"true\"\n"
	for _, skip := range []bool{false, true} {
		v := poolValues
		v.SkipSandboxProof = skip
		m, err := r.Installation(v)
		if err != nil {
			t.Fatal(err)
		}
		want := []client.Object{expectedConfigMap("gvisor", runscToml), expectedDaemonSet(dsParams{pool: "gvisor", image: pinnedImage(t),
			binaryPath: "/var/bin/containerruntimes", runscToml: runscToml, skipSandboxProof: skip,
			nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}}), expectedNetworkPolicy("gvisor")}
		if diff := cmp.Diff(want, m.Objects(), quantityEqual); diff != "" {
			t.Errorf("SkipSandboxProof=%v (-want +got):\n%s", skip, diff)
		}

		shoot, err := renderShoot(r, render.Settings{SkipSandboxProof: skip}, false, containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio))
		if err != nil {
			t.Fatal(err)
		}
		want2 := "--prove-sandbox=true"
		if skip {
			want2 = "--prove-sandbox=false"
		}
		for _, ds := range daemonSets(shoot) {
			if got := proveFlag(ds); got != want2 {
				t.Errorf("ShootOptions{SkipSandboxProof: %v}: DaemonSet %s runs %q, want %q", skip, ds.Name, got, want2)
			}
		}

		v.Mode = render.ModeUninstall
		m, err = r.Installation(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, ds := range daemonSets(m) {
			if got := proveFlag(ds); got != "" {
				t.Errorf("uninstall mode runs %q: it proves nothing", got)
			}
		}
	}
}

func daemonSets(m *render.Manifests) []*appsv1.DaemonSet {
	var out []*appsv1.DaemonSet
	for _, o := range m.Objects() {
		if ds, ok := o.(*appsv1.DaemonSet); ok {
			out = append(out, ds)
		}
	}
	return out
}

func proveFlag(ds *appsv1.DaemonSet) string {
	for _, a := range installerContainer(ds).Command {
		if strings.HasPrefix(a, "--prove-sandbox") {
			return a
		}
	}
	return ""
}
