// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel/nodelabeltest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// quantityEqual compares quantities by value: parsed and constructed quantities differ in cached fields.
var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// pinnedImage is the installation image as imagevector/images.yaml pins it (the last release, by digest once a
// release pinned one): what a development build renders. Read from there so the release step only edits images.yaml.
func pinnedImage(t testing.TB) string {
	t.Helper()
	ref, err := imagevector.PinnedReference(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// newRenderer returns a renderer for the given build version and optional image vector overwrite file:
// the version is a parameter so tests cover release and development builds without linker flags.
func newRenderer(t testing.TB, version, overwrite string) *render.Renderer {
	t.Helper()
	vector, err := imagevector.LoadWithOverwrite(version, overwrite)
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.New(vector)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// realAPIServer starts a real kube-apiserver with etcd for the test (nodelabeltest) and returns a client of it, for
// the checks whose judge is the API server's validation (immutable fields, update rules).
func realAPIServer(t *testing.T) client.Client {
	t.Helper()
	s := nodelabeltest.StartAPIServer(t)
	c, err := client.New(s.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var errMismatch = errors.New("concurrent render gave different bytes")

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mustLoad(t testing.TB) imagevectorutils.ImageVector {
	t.Helper()
	v, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// copyCharts copies the embedded charts into fsys.
func copyCharts(t testing.TB, fsys fstest.MapFS) {
	t.Helper()
	err := fs.WalkDir(charts.Internal, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(charts.Internal, p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testShootVersion is the shoot Kubernetes version the tests render for unless they are about the version: one the
// readiness gate works on.
const testShootVersion = "1.33.0"

// renderShoot renders crs as one shoot on testShootVersion and returns every object, as gvisor-render prints them.
func renderShoot(r *render.Renderer, s render.Settings, uninstall bool, crs ...*extensionsv1alpha1.ContainerRuntime) (*render.Manifests, error) {
	out, err := r.Shoot(s, render.ShootInput{ContainerRuntimes: crs, KubernetesVersion: testShootVersion, Uninstall: uninstall})
	if err != nil {
		return nil, err
	}
	return out.Manifests(), nil
}
