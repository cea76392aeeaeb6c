// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images_test

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
)

// TestBuild: the three images are built for this machine, named as this tree's charts reference them (or as the
// options say), their archives hold exactly the images (digest), a second build is warm and gives the same images,
// and the overwrite and values point the extension at them.
func TestBuild(t *testing.T) {
	start := time.Now()
	built := images.Build(t, images.Options{})
	t.Logf("built in %s", time.Since(start).Round(time.Millisecond))
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(built.Version, "-dev") {
		t.Fatalf("VERSION %s is not a development version: the default names below assume one", built.Version)
	}
	for n, img := range built.Images {
		want := "ghcr.io/runtime-gvisor/" + n + ":" + pinned
		if img.Ref != want || img.Arch != runtime.GOARCH || img.Repository+":"+img.Tag != want {
			t.Errorf("%s: %+v, want %s for %s", n, img, want, runtime.GOARCH)
		}
		if d, err := img.Read(t).Digest(); err != nil || d.String() != img.Digest {
			t.Errorf("%s: the archive holds %s (%v), the build %s", n, d, err, img.Digest)
		}
	}

	start = time.Now()
	again := images.Build(t, images.Options{Registry: "registry.test/this-tree", Tag: "next"})
	t.Logf("built again (warm) in %s", time.Since(start).Round(time.Millisecond))
	for n, img := range again.Images {
		if img.Ref != "registry.test/this-tree/"+n+":next" || img.Digest != built.Images[n].Digest {
			t.Errorf("%s: %s %s, want registry.test/this-tree/%s:next with the first build's digest %s", n, img.Ref, img.Digest, n, built.Images[n].Digest)
		}
	}

	vector, err := imagevector.LoadWithOverwrite(built.Version, again.WriteImageVectorOverwrite(t))
	if err != nil {
		t.Fatal(err)
	}
	for n, img := range again.Images {
		if got, err := vector.FindImage(n); err != nil || got.String() != img.Ref {
			t.Errorf("the overwrite renders %s as %v (%v), want %s", n, got, err, img.Ref)
		}
	}
	var values struct {
		Image                map[string]string `json:"image"`
		ImageVectorOverwrite string            `json:"imageVectorOverwrite"`
	}
	data, err := os.ReadFile(again.WriteExtensionValues(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &values); err != nil {
		t.Fatal(err)
	}
	if values.Image["repository"] != "registry.test/this-tree/"+imagevector.ImageNameExtension || values.Image["tag"] != "next" ||
		values.ImageVectorOverwrite != again.ImageVectorOverwrite(t) {
		t.Errorf("extension values:\n%s", data)
	}
}
