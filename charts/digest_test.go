// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

const (
	releaseDigest  = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	operatorDigest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
)

// pinnedChart is a copy of chart with its release image pinned to releaseDigest, as the release step
// (imagevector.PinChartDigest) writes it, and the chart's appVersion.
func pinnedChart(t *testing.T, chart string) (dir, appVersion string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), filepath.Base(chart))
	if err := os.CopyFS(dir, os.DirFS(chart)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if data, err = imagevector.PinChartDigest(data, releaseDigest); err != nil {
		t.Fatalf("%s/Chart.yaml: %v", chart, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var meta struct {
		AppVersion  string            `json:"appVersion"`
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Annotations[imagevector.ImageDigestAnnotation] != releaseDigest {
		t.Fatalf("the pinned Chart.yaml has annotations %v", meta.Annotations)
	}
	return dir, meta.AppVersion
}

// TestReleaseImagesByDigest: a release's extension and admission charts pull their own image by the digest the
// release pinned, so that whoever moves the tag in the registry changes nothing; a mirror (another repository)
// keeps the digest; an operator's own tag is pulled as written, or by the digest they give beside it.
func TestReleaseImagesByDigest(t *testing.T) {
	for _, c := range []struct {
		name, chart, repository string
		args                    []string
		image                   func(t *testing.T, manifests string) string
	}{
		{"extension", extensionChart, "ghcr.io/runtime-gvisor/gardener-extension-runtime-gvisor", nil,
			func(t *testing.T, m string) string { _, c := decode(t, m).deployment(t); return c.Image }},
		{"admission runtime", admissionRuntime, "ghcr.io/runtime-gvisor/gardener-extension-admission-runtime-gvisor", []string{"-f", admissionValues},
			func(t *testing.T, m string) string {
				d := decodeAdmission(t, m).deployments
				if len(d) != 1 {
					t.Fatalf("%d Deployments, want 1", len(d))
				}
				return d[0].Spec.Template.Spec.Containers[0].Image
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, appVersion := pinnedChart(t, c.chart)
			for _, tc := range []struct {
				name string
				args []string
				want string
			}{
				{"release", nil, c.repository + ":" + appVersion + "@" + releaseDigest},
				{"mirror", []string{"--set", "image.repository=mirror.example/gvisor/image"}, "mirror.example/gvisor/image:" + appVersion + "@" + releaseDigest},
				{"operator's tag", []string{"--set", "image.tag=v9.9.9"}, c.repository + ":v9.9.9"},
				{"operator's tag and digest", []string{"--set", "image.tag=v9.9.9", "--set", "image.digest=" + operatorDigest}, c.repository + ":v9.9.9@" + operatorDigest},
				{"operator's digest of the release", []string{"--set", "image.digest=" + operatorDigest}, c.repository + ":" + appVersion + "@" + operatorDigest},
			} {
				args := append([]string{"template", "gvisor", dir, "--namespace", releaseNS}, append(c.args, tc.args...)...)
				out, stderr, err := helm(t, args...)
				if err != nil {
					t.Fatalf("%s: helm template: %v\n%s", tc.name, err, stderr)
				}
				if got := c.image(t, out); got != tc.want {
					t.Errorf("%s: image %s, want %s", tc.name, got, tc.want)
				}
			}
			templateRefused(t, []string{"template", "gvisor", dir, "--namespace", releaseNS}, append(c.args, "--set", "image.digest=sha256:abc"),
				[]string{"/image/digest"})
		})
	}
}

// TestChartDigestsAgree: the release pins the admission image in two places, images.yaml (Gardener's image vector)
// and the admission runtime chart (what operators install); both name the same digest of the same release, and the
// extension chart pins none or its own.
func TestChartDigestsAgree(t *testing.T) {
	read := func(chart string) (appVersion, digest string) {
		data, err := os.ReadFile(filepath.Join(chart, "Chart.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			AppVersion  string            `json:"appVersion"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := yaml.Unmarshal(data, &meta); err != nil {
			t.Fatalf("%s/Chart.yaml: %v", chart, err)
		}
		digest, ok := meta.Annotations[imagevector.ImageDigestAnnotation]
		if !ok {
			t.Fatalf("%s/Chart.yaml has no annotation %s (empty until a release pins it)", chart, imagevector.ImageDigestAnnotation)
		}
		if digest != "" {
			if err := imagevector.CheckDigest(digest); err != nil {
				t.Errorf("%s/Chart.yaml: %v", chart, err)
			}
		}
		return meta.AppVersion, digest
	}
	read(extensionChart)
	appVersion, digest := read(admissionRuntime)
	pinnedTag, err := imagevector.PinnedTag(imagevector.ImageNameAdmission)
	if err != nil {
		t.Fatal(err)
	}
	pinnedDigest, err := imagevector.PinnedDigest(imagevector.ImageNameAdmission)
	if err != nil {
		t.Fatal(err)
	}
	if appVersion != pinnedTag || digest != pinnedDigest {
		t.Errorf("the admission runtime chart pins %s@%s, imagevector/images.yaml %s@%s: hack/release.sh pins both", appVersion, digest, pinnedTag, pinnedDigest)
	}
}
