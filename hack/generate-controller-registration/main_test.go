// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gardencorev1 "github.com/gardener/gardener/pkg/apis/core/v1"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

const (
	repoRoot = "../.."
	chartDir = repoRoot + "/charts/gardener-extension-runtime-gvisor"
	example  = repoRoot + "/example/controller-registration.yaml"
)

func repoVersion(t *testing.T) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(repoRoot, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(v))
}

// TestExampleIsUpToDate regenerates the registration exactly as `make generate` does (through run, into a
// temp file) and fails if the committed example differs.
func TestExampleIsUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "controller-registration.yaml")
	if err := run(repoVersion(t), chartDir, out); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(example)
	if err != nil {
		t.Fatalf("%v: run `make generate`", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("example/controller-registration.yaml is stale (chart or VERSION changed): run `make generate` and commit the result")
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate("v0.1.0-dev", chartDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate("v0.1.0-dev", chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two runs on the same chart and version produced different bytes")
	}
}

// TestGenerateObjects decodes the output strictly into Gardener's own API types and checks every field
// Gardener reads, including that the rawChart is a loadable chart with the resolved root schema.
func TestGenerateObjects(t *testing.T) {
	rootSchema, err := os.ReadFile(filepath.Join(repoRoot, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The last release as imagevector/images.yaml pins it: a non-release build takes the chart's appVersion,
	// which must name that same release.
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameExtension)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ version, wantTag string }{
		{"v1.2.3", "v1.2.3"},           // release: the image gets the release's own tag
		{"v0.1.0-dev", pinned},         // development: the last release (Chart.yaml appVersion)
		{"v0.0.0-dev", pinned},         // unstamped `go build`
		{"v1.2.3-dirty", pinned},       // dirty tree
		{"v1.2.3+abc", pinned},         // build metadata
		{"v1.2.3-rc.1", pinned},        // pre-release: not a vX.Y.Z release
		{"master+$Format:%H$", pinned}, // unexpanded git archive placeholder
	} {
		t.Run(tc.version, func(t *testing.T) {
			data, err := Generate(tc.version, chartDir)
			if err != nil {
				t.Fatal(err)
			}
			docs := strings.Split(string(data), "\n---\n")
			if len(docs) != 3 {
				t.Fatalf("want header + 2 documents, got %d parts", len(docs))
			}
			var deployment gardencorev1.ControllerDeployment
			if err := yaml.UnmarshalStrict([]byte(docs[1]), &deployment); err != nil {
				t.Fatalf("ControllerDeployment: %v", err)
			}
			var registration gardencorev1beta1.ControllerRegistration
			if err := yaml.UnmarshalStrict([]byte(docs[2]), &registration); err != nil {
				t.Fatalf("ControllerRegistration: %v", err)
			}

			if deployment.APIVersion != "core.gardener.cloud/v1" || deployment.Kind != "ControllerDeployment" || deployment.Name != "runtime-gvisor" {
				t.Errorf("ControllerDeployment type/name: %s %s %s", deployment.APIVersion, deployment.Kind, deployment.Name)
			}
			var values map[string]any
			if err := json.Unmarshal(deployment.Helm.Values.Raw, &values); err != nil {
				t.Fatal(err)
			}
			wantImage := map[string]any{"tag": tc.wantTag}
			if digest := chartDigest(t, chartDir); digest != "" && tc.wantTag == pinned {
				wantImage["digest"] = digest // a release's chart: its controller by the pinned digest
			}
			if diff := cmp.Diff(map[string]any{"image": wantImage}, values); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			c, err := loader.LoadArchive(bytes.NewReader(deployment.Helm.RawChart))
			if err != nil {
				t.Fatalf("rawChart: %v", err)
			}
			if !bytes.Equal(c.Schema, rootSchema) {
				t.Error("rawChart's values.schema.json is not the root values.schema.json")
			}
			if c.Name() != "gardener-extension-runtime-gvisor" {
				t.Errorf("rawChart name %q", c.Name())
			}

			policy := gardencorev1beta1.ControllerDeploymentPolicyOnDemand
			want := gardencorev1beta1.ControllerRegistration{
				Spec: gardencorev1beta1.ControllerRegistrationSpec{
					Resources: []gardencorev1beta1.ControllerResource{{Kind: "ContainerRuntime", Type: "gvisor"}},
					Deployment: &gardencorev1beta1.ControllerRegistrationDeployment{
						Policy:         &policy,
						DeploymentRefs: []gardencorev1beta1.DeploymentRef{{Name: "runtime-gvisor"}},
					},
				},
			}
			want.APIVersion, want.Kind, want.Name = "core.gardener.cloud/v1beta1", "ControllerRegistration", "runtime-gvisor"
			if diff := cmp.Diff(want, registration); diff != "" {
				t.Errorf("ControllerRegistration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImageTagRejectsDevAppVersion(t *testing.T) {
	_, err := imageTag("v0.2.0-dev", "v0.2.0-dev")
	if err == nil || !strings.Contains(err.Error(), "appVersion") {
		t.Fatalf("want an error naming appVersion, got %v", err)
	}
}

func TestRunRequiresVersion(t *testing.T) {
	err := run("", chartDir, filepath.Join(t.TempDir(), "x.yaml"))
	if err == nil || !strings.Contains(err.Error(), "-version") {
		t.Fatalf("want an error naming -version, got %v", err)
	}
}

func TestRunLeavesNoPartialFileOnError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.yaml")
	if err := run("v1.0.0", filepath.Join(t.TempDir(), "missing-chart"), out); err == nil {
		t.Fatal("want an error for a missing chart")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("output written despite the error: %v", err)
	}
}

// TestLibrarySchemaRejectsMisplacedOverwrite checks the schema with the helm library gardenlet renders
// with (helm.sh/helm/v3 from go.mod), not only with the helm CLI (charts/charts_test.go).
func TestLibrarySchemaRejectsMisplacedOverwrite(t *testing.T) {
	_, archive, err := packageChart(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	err = verifyRenders(archive, map[string]any{"image": map[string]any{"imageVectorOverwrite": "images: []"}})
	if err == nil || !strings.Contains(err.Error(), "TOP-LEVEL value imageVectorOverwrite") {
		t.Fatalf("want the schema's hint, got %v", err)
	}
	if err := verifyRenders(archive, map[string]any{"imageVectorOverwrite": "images: []"}); err != nil {
		t.Fatalf("top-level imageVectorOverwrite rejected: %v", err)
	}
}

// chartDigest is the digest the chart in dir pins for its image (Chart.yaml's annotation), empty before a release.
func chartDigest(t *testing.T, dir string) string {
	t.Helper()
	c, err := loader.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c.Metadata.Annotations[imagevector.ImageDigestAnnotation]
}

// TestGeneratePinnedChart: the registration of a release's chart names the controller image by the digest the
// release pinned: its explicit image.tag would otherwise drop the chart's default digest. A release of another
// version than the chart's (no pin for it) gets the tag alone.
func TestGeneratePinnedChart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chart")
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	const digest = "sha256:4444444444444444444444444444444444444444444444444444444444444444"
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if data, err = imagevector.PinChartDigest(data, digest); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameExtension)
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string]map[string]any{
		"v0.0.0-dev": {"tag": pinned, "digest": digest},
		"v98.0.0":    {"tag": "v98.0.0"},
	} {
		out, err := Generate(version, dir)
		if err != nil {
			t.Fatal(err)
		}
		var deployment gardencorev1.ControllerDeployment
		if err := yaml.Unmarshal([]byte(strings.Split(string(out), "\n---\n")[1]), &deployment); err != nil {
			t.Fatal(err)
		}
		var values map[string]any
		if err := json.Unmarshal(deployment.Helm.Values.Raw, &values); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{"image": want}, values); diff != "" {
			t.Errorf("%s: values (-want +got):\n%s", version, diff)
		}
	}
}
