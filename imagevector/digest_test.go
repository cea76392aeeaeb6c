// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package imagevector_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

const (
	digestA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// pinnedRelease is images.yaml as the release step pins v7.8.9: the installation and admission images by digest.
func pinnedRelease(t *testing.T) []byte {
	t.Helper()
	out, err := imagevector.PinDigests(imagevector.ImagesYAML(), "v7.8.9", map[string]string{
		imagevector.ImageNameInstallation: digestA,
		imagevector.ImageNameAdmission:    digestB,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPinDigests: the release step's edit pins exactly the named images (tag and digest), keeps the file's
// comments, and what it wrote renders by digest for every build but a release of another version.
func TestPinDigests(t *testing.T) {
	pinned := pinnedRelease(t)
	for _, comment := range []string{"# Images of gardener-extension-runtime-gvisor", "# The admission webhook server"} {
		if !bytes.Contains(pinned, []byte(comment)) {
			t.Errorf("the pinned images.yaml lost the comment %q:\n%s", comment, pinned)
		}
	}
	for _, tc := range []struct{ version, install, admit, ext string }{
		// Development builds after the release: the release's images, by digest.
		{"v7.9.0-dev", installRepo + ":v7.8.9@" + digestA, admitRepo + ":v7.8.9@" + digestB, extRepo + ":v7.8.9"},
		// The release's own build renders what it pinned.
		{"v7.8.9", installRepo + ":v7.8.9@" + digestA, admitRepo + ":v7.8.9@" + digestB, extRepo + ":v7.8.9"},
		// A build of another release than the pinned one: that release's tag, no digest of another image.
		{"v8.0.0", installRepo + ":v8.0.0", admitRepo + ":v8.0.0", extRepo + ":v8.0.0"},
	} {
		vector, err := imagevector.Parse(pinned, tc.version)
		if err != nil {
			t.Fatalf("Parse(pinned, %s): %v", tc.version, err)
		}
		for name, want := range map[string]string{imagevector.ImageNameInstallation: tc.install, imagevector.ImageNameAdmission: tc.admit, imagevector.ImageNameExtension: tc.ext} {
			img, err := vector.FindImage(name)
			if err != nil {
				t.Fatal(err)
			}
			if img.String() != want {
				t.Errorf("%s build, %s: %s, want %s", tc.version, name, img.String(), want)
			}
		}
	}
}

// TestPinDigestsRefuses: what the release step must not write is refused with the image and the fix named.
func TestPinDigestsRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		digests       map[string]string
		want          string
	}{
		{"not a release", "v7.8.9-dev", map[string]string{imagevector.ImageNameInstallation: digestA}, "not a release"},
		{"short digest", "v7.8.9", map[string]string{imagevector.ImageNameInstallation: "sha256:abc"}, "sha256:<64 lowercase hex digits>"},
		{"tag for a digest", "v7.8.9", map[string]string{imagevector.ImageNameInstallation: "v7.8.9"}, "sha256:<64 lowercase hex digits>"},
		{"unknown image", "v7.8.9", map[string]string{"no-such-image": digestA}, `no image "no-such-image"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := imagevector.PinDigests(imagevector.ImagesYAML(), tc.version, tc.digests); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("PinDigests: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestParseRefusesBadPins: a hand-edited pin that is no release, or whose digest is no digest, is refused naming the
// image, rather than rendered for every node.
func TestParseRefusesBadPins(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"v7.8.9@sha256:xyz", "sha256:<64 lowercase hex digits>"},
		{"latest@" + digestA, "not a release"},
		{"v7.8.9-dev", "not a release"},
	} {
		data := strings.Replace(string(pinnedRelease(t)), "tag: v7.8.9@"+digestA, "tag: "+tc.tag, 1)
		if _, err := imagevector.Parse([]byte(data), "v0.0.0-dev"); err == nil || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), imagevector.ImageNameInstallation) {
			t.Errorf("Parse with the installation image pinned %q: %v, want an error naming the image and %q", tc.tag, err, tc.want)
		}
	}
}

// TestMirrorKeepsThePin: an operator who mirrors the release into a registry of theirs overwrites the repository
// only (Gardener's merge keeps the tag): the nodes still pull the release's image by its digest. An operator who
// names a tag of theirs gets that tag, as written.
func TestMirrorKeepsThePin(t *testing.T) {
	vector, err := imagevector.Parse(pinnedRelease(t), "v7.9.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ overwrite, want string }{
		{"images:\n- name: runtime-gvisor-installation\n  repository: mirror.example/gvisor/installation\n", "mirror.example/gvisor/installation:v7.8.9@" + digestA},
		{"images:\n- name: runtime-gvisor-installation\n  repository: mirror.example/gvisor/installation\n  tag: v7.8.9-patched\n", "mirror.example/gvisor/installation:v7.8.9-patched"},
	} {
		merged, err := imagevector.Overwrite(vector, writeOverwrite(t, tc.overwrite))
		if err != nil {
			t.Fatal(err)
		}
		img, err := merged.FindImage(imagevector.ImageNameInstallation)
		if err != nil {
			t.Fatal(err)
		}
		if img.String() != tc.want {
			t.Errorf("overwrite %q: %s, want %s", tc.overwrite, img.String(), tc.want)
		}
	}
}
