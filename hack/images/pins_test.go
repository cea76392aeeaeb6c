// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// treeCopy copies the files the release pins into a temporary tree, as they are in this checkout.
func treeCopy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{imagesFile, extensionChartFile, admissionChartFile, installationValues, installationChartDocs} {
		data, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPinsRoundTrip: what pin writes for the release of this checkout's charts, push reads back, image by image,
// in every file that names the image; before the pin, push refuses and says how to pin.
func TestPinsRoundTrip(t *testing.T) {
	root := treeCopy(t)
	version, err := imagevector.PinnedTag(imagevector.ImageNameExtension) // the charts' appVersion
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readPins(root, version); err == nil || !strings.Contains(err.Error(), "run hack/release.sh") {
		t.Errorf("readPins of an unpinned tree: %v, want an error saying to run hack/release.sh", err)
	}
	digests := map[string]string{
		imagevector.ImageNameInstallation: "sha256:" + strings.Repeat("1", 64),
		imagevector.ImageNameAdmission:    "sha256:" + strings.Repeat("2", 64),
	}
	if err := writePins(root, version, digests); err != nil {
		t.Fatal(err)
	}
	digests[imagevector.ImageNameExtension] = "sha256:" + strings.Repeat("3", 64)
	if err := writePins(root, version, map[string]string{imagevector.ImageNameExtension: digests[imagevector.ImageNameExtension]}); err != nil {
		t.Fatal(err)
	}
	pins, err := readPins(root, version)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(digests, pins); d != "" {
		t.Errorf("read back (-written +read):\n%s", d)
	}
	values, err := os.ReadFile(filepath.Join(root, installationValues))
	if err != nil {
		t.Fatal(err)
	}
	if want := "image: ghcr.io/runtime-gvisor/runtime-gvisor-installation:" + version + "@" + digests[imagevector.ImageNameInstallation] + "\n"; !strings.Contains(string(values), want) {
		t.Errorf("%s lacks %q", installationValues, want)
	}
	docs, err := os.ReadFile(filepath.Join(root, installationChartDocs))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), version+"@"+digests[imagevector.ImageNameInstallation]) {
		t.Errorf("%s does not show the pinned default image", installationChartDocs)
	}
	if _, err := readPins(root, "v99.0.0"); err == nil || !strings.Contains(err.Error(), "not the release v99.0.0") {
		t.Errorf("readPins for another release: %v, want an error naming it", err)
	}
}

// TestVerifyPins: push refuses images whose digest is not the pinned one, naming the image and both digests.
func TestVerifyPins(t *testing.T) {
	pinned := map[string]string{imagevector.ImageNameInstallation: "sha256:aa", imagevector.ImageNameExtension: "sha256:bb"}
	if err := verifyPins(map[string]string{imagevector.ImageNameInstallation: "sha256:aa", imagevector.ImageNameExtension: "sha256:bb"}, pinned); err != nil {
		t.Errorf("the pinned images: %v", err)
	}
	err := verifyPins(map[string]string{imagevector.ImageNameInstallation: "sha256:cc", imagevector.ImageNameExtension: "sha256:bb"}, pinned)
	if err == nil || !strings.Contains(err.Error(), imagevector.ImageNameInstallation+" built as sha256:cc, pinned sha256:aa") {
		t.Errorf("another installation image: %v, want an error naming it and both digests", err)
	}
}

// TestReleaseCommandsRefuseOtherVersions: pin and push refuse a development version before they build anything.
func TestReleaseCommandsRefuseOtherVersions(t *testing.T) {
	for _, cmd := range []string{"pin", "push"} {
		for _, v := range []string{"", "v0.2.0-dev", "v0.2.0-rc.1"} {
			err := run(context.Background(), []string{cmd, "-version", v})
			if err == nil || !strings.Contains(err.Error(), "is not a release") {
				t.Errorf("%s -version %q: %v, want a refusal naming -version", cmd, v, err)
			}
		}
	}
}
