// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package imagevector_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

const (
	extRepo      = "ghcr.io/runtime-gvisor/gardener-extension-runtime-gvisor"
	installRepo  = "ghcr.io/runtime-gvisor/runtime-gvisor-installation"
	admitRepo    = "ghcr.io/runtime-gvisor/gardener-extension-admission-runtime-gvisor"
	overrideFile = "images_overwrite.yaml"
)

// pinnedTag is the last release as images.yaml pins it, read from there so that the release step only edits
// images.yaml; both our images carry the same pin.
func pinnedTag(t *testing.T) string {
	t.Helper()
	tag, err := imagevector.PinnedTag(imagevector.ImageNameExtension)
	if err != nil {
		t.Fatal(err)
	}
	if other, err := imagevector.PinnedTag(imagevector.ImageNameInstallation); err != nil || other != tag {
		t.Fatalf("images.yaml pins %s for %s but %q (%v) for %s: the release step pins both to the same release",
			tag, imagevector.ImageNameExtension, other, err, imagevector.ImageNameInstallation)
	}
	if other, err := imagevector.PinnedTag(imagevector.ImageNameAdmission); err != nil || other != tag {
		t.Fatalf("images.yaml pins %s for %s but %q (%v) for %s: the release step pins all our images to the same release",
			tag, imagevector.ImageNameExtension, other, err, imagevector.ImageNameAdmission)
	}
	return tag
}

// refs resolves every image of the vector to its reference, by name.
func refs(t *testing.T, version, overwrite string) map[string]string {
	t.Helper()
	vector, err := imagevector.LoadWithOverwrite(version, overwrite)
	if err != nil {
		t.Fatalf("LoadWithOverwrite(%q, %q): %v", version, overwrite, err)
	}
	out := map[string]string{}
	for _, src := range vector {
		img, err := vector.FindImage(src.Name)
		if err != nil {
			t.Fatalf("FindImage(%q): %v", src.Name, err)
		}
		out[src.Name] = img.String()
	}
	return out
}

func writeOverwrite(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), overrideFile)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersionRule(t *testing.T) {
	pinned := pinnedTag(t)
	tests := []struct {
		version string
		wantTag string
	}{
		{"v9.8.7", "v9.8.7"},
		{"v0.1.0", "v0.1.0"},
		{"v1.20.300", "v1.20.300"},
		// Everything that is not a plain release keeps the pinned tag of the last release.
		{"v0.1.0-dev", pinned},
		{"v0.0.0-dev", pinned}, // unstamped `go build` / `go test`
		{"v0.1.0-dirty", pinned},
		{"v0.1.0-dev-dirty", pinned},
		{"v1.2.3+meta", pinned},
		{"v1.2.3-rc.1", pinned},
		{"v0.1.0-master+$Format:%H$", pinned},
		{"1.2.3", pinned},
		{"", pinned},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			want := map[string]string{
				imagevector.ImageNameExtension:    extRepo + ":" + tt.wantTag,
				imagevector.ImageNameInstallation: installRepo + ":" + tt.wantTag,
				imagevector.ImageNameAdmission:    admitRepo + ":" + tt.wantTag,
			}
			got := refs(t, tt.version, "")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("images for version %q (-want +got):\n%s", tt.version, diff)
			}
			for name, ref := range got {
				if err := imagevector.CheckReference(ref); err != nil {
					t.Errorf("image %s: %v", name, err)
				}
			}
		})
	}
}

func TestOverwrite(t *testing.T) {
	pinned := pinnedTag(t)
	tests := []struct {
		name      string
		version   string
		overwrite string
		want      map[string]string
	}{
		{
			name:    "tag (Gardener requires the repository beside it)",
			version: "v9.8.7",
			overwrite: `images:
- name: runtime-gvisor-installation
  repository: ghcr.io/runtime-gvisor/runtime-gvisor-installation
  tag: v0.2.0-rc.1
`,
			want: map[string]string{
				imagevector.ImageNameExtension:    extRepo + ":v9.8.7",
				imagevector.ImageNameInstallation: installRepo + ":v0.2.0-rc.1",
			},
		},
		{
			name:    "repository and tag (a mirror)",
			version: "v0.1.0-dev",
			overwrite: `images:
- name: runtime-gvisor-installation
  repository: registry.example.com/mirror/runtime-gvisor-installation
  tag: v0.1.0
`,
			want: map[string]string{
				imagevector.ImageNameExtension:    extRepo + ":" + pinned,
				imagevector.ImageNameInstallation: "registry.example.com/mirror/runtime-gvisor-installation:v0.1.0",
			},
		},
		{
			name:    "ref is used exactly, never with a second tag",
			version: "v9.8.7",
			overwrite: `images:
- name: runtime-gvisor-installation
  ref: registry.example.com/gvisor/installation:v1.0.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`,
			want: map[string]string{
				imagevector.ImageNameExtension:    extRepo + ":v9.8.7",
				imagevector.ImageNameInstallation: "registry.example.com/gvisor/installation:v1.0.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			},
		},
		{
			name:    "digest as tag uses @",
			version: "v0.0.0-dev",
			overwrite: `images:
- name: gardener-extension-runtime-gvisor
  repository: ghcr.io/runtime-gvisor/gardener-extension-runtime-gvisor
  tag: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`,
			want: map[string]string{
				imagevector.ImageNameExtension:    extRepo + "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				imagevector.ImageNameInstallation: installRepo + ":" + pinned,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refs(t, tt.version, writeOverwrite(t, tt.overwrite))
			// No case overwrites the admission image: it follows the version rule.
			admitTag := pinned
			if imagevector.IsRelease(tt.version) {
				admitTag = tt.version
			}
			tt.want[imagevector.ImageNameAdmission] = admitRepo + ":" + admitTag
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadHonoursEnv(t *testing.T) {
	t.Setenv(imagevector.OverrideEnv, writeOverwrite(t, "images:\n- name: runtime-gvisor-installation\n  ref: example.com/i:v1\n"))
	vector, err := imagevector.Load("v9.8.7")
	if err != nil {
		t.Fatal(err)
	}
	img, err := vector.FindImage(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.String(); got != "example.com/i:v1" {
		t.Errorf("installation image = %q, want example.com/i:v1 from %s", got, imagevector.OverrideEnv)
	}
}

func TestBadOverwriteNamesFile(t *testing.T) {
	for name, content := range map[string]string{
		"not YAML":                "images: [",
		"neither ref nor repo":    "images:\n- name: runtime-gvisor-installation\n  tag: v1\n  ref: a:b\n  repository: c\n",
		"missing file is handled": "",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "missing.yaml")
			if content != "" {
				p = writeOverwrite(t, content)
			}
			_, err := imagevector.LoadWithOverwrite("v1.0.0", p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), imagevector.OverrideEnv) {
				t.Fatalf("LoadWithOverwrite() error = %v, want one naming %s and %s", err, p, imagevector.OverrideEnv)
			}
		})
	}
}

func TestCheckReference(t *testing.T) {
	for _, bad := range []string{
		"ghcr.io/x/y:v0.1.0-dev", "ghcr.io/x/y:v0.1.0-dirty", "ghcr.io/x/y:v0.0.0-master+abc", "ghcr.io/x/y:$Format:%H$",
	} {
		if imagevector.CheckReference(bad) == nil {
			t.Errorf("CheckReference(%q) = nil, want an error", bad)
		}
	}
	if err := imagevector.CheckReference(installRepo + ":v1.2.3"); err != nil {
		t.Errorf("CheckReference(release) = %v", err)
	}
}

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{"v1.2.3": true, "v0.1.0": true, "v1.2.3-dev": false, "1.2.3": false, "v1.2": false, "v1.2.3+x": false, "v0.0.0-dev": false} {
		if got := imagevector.IsRelease(v); got != want {
			t.Errorf("IsRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestPinnedTag: the pin is a release (what a development build renders must exist in the registry), and an
// unknown name is an error naming it rather than an empty tag.
func TestPinnedTag(t *testing.T) {
	for _, name := range []string{imagevector.ImageNameExtension, imagevector.ImageNameInstallation} {
		tag, err := imagevector.PinnedTag(name)
		if err != nil {
			t.Fatalf("PinnedTag(%q): %v", name, err)
		}
		if !imagevector.IsRelease(tag) {
			t.Errorf("PinnedTag(%q) = %q, want a release vX.Y.Z", name, tag)
		}
	}
	if tag, err := imagevector.PinnedTag("no-such-image"); err == nil || !strings.Contains(err.Error(), "no-such-image") {
		t.Errorf("PinnedTag(unknown) = %q, %v; want an error naming the image", tag, err)
	}
}
