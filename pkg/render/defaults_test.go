// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"io/fs"
	"path"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// TestChartDefaultsMatchImageVector keeps the two places that name the last release in step: the installation
// chart's default image (for `helm install` without the extension) and appVersion must be the image the image
// vector pins for a development build.
func TestChartDefaultsMatchImageVector(t *testing.T) {
	vector, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	img, err := vector.FindImage(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Image string `json:"image"`
	}
	readYAML(t, path.Join(charts.InstallationChartPath, "values.yaml"), &values)
	if values.Image != img.String() {
		t.Errorf("%s/values.yaml image = %q, want %q (imagevector/images.yaml)", charts.InstallationChartPath, values.Image, img.String())
	}
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameInstallation) // the release, without its digest
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{charts.InstallationChartPath, charts.RuntimeClassChartPath} {
		var meta struct {
			AppVersion string `json:"appVersion"`
		}
		readYAML(t, path.Join(dir, "Chart.yaml"), &meta)
		if meta.AppVersion != pinned {
			t.Errorf("%s/Chart.yaml appVersion = %q, want the pinned release %q", dir, meta.AppVersion, pinned)
		}
	}
}

func readYAML(t *testing.T, name string, into any) {
	t.Helper()
	data, err := fs.ReadFile(charts.Internal, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
