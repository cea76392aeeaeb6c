// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package images builds the extension's three images from this tree for tests, with the definition and builder the
// release uses (pkg/images), for this machine's architecture, on the synthetic base (no registry needed), and writes
// each as an archive that `ctr -n k8s.io images import` reads:
//
//	built := images.Build(t, images.Options{})
//	built.Installation().Archive  // ctr -n k8s.io images import <archive>
//	built.Installation().Ref      // ghcr.io/runtime-gvisor/runtime-gvisor-installation:v0.1.0, as imported
//	built.WriteExtensionValues(t) // helm values: the controller image and the imageVectorOverwrite for all three
//
// By default the images are named as a build of the tree's VERSION references them (imagevector's rule: a -dev
// version renders the last released tag), so the charts and the controller of this tree use them unchanged;
// Options.Registry and Options.Tag name them apart (an upgrade test that imports two builds side by side).
//
// The installation image carries the gVisor release the tests use (GVISOR_TEST_GVISOR_DIR, hack/tools/gvisor.sh),
// which must match imagevector/gvisor-sums.yaml as in a release; without it Build skips the test (fails under
// REQUIRE_REAL_COMPONENTS=1). Binaries are built into a cache below the tool cache (TOOLS_DIR, default
// ~/.cache/runtime-gvisor), kept per source tree and shared by every test package: go build does not link again
// what is up to date there, so a warm Build of the three images takes seconds.
package images

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Options say what to build and how to name it; the zero value builds this tree's VERSION as the charts reference it.
type Options struct {
	// Version is stamped into the binaries (pkg/version.Version); empty: the tree's VERSION file, as `make build`.
	Version string
	// Registry names the images <Registry>/<image> instead of imagevector/images.yaml's repositories (for example
	// "registry.test/this-tree"); Tag replaces the tag a build of Version renders (no -dev and the like: the
	// extension chart refuses those).
	Registry, Tag string
	// GVisorDir is the gVisor release for the installation image. Empty: the tests' (GVISOR_TEST_GVISOR_DIR), which
	// must be the build imagevector/gvisor-sums.yaml records. Set (a test's own, maybe broken, release): used as it
	// is, checked only as the installer checks a release (its SHA512SUMS, architecture, names).
	GVisorDir string
	// Dir is where the archives are written; empty: a directory of the test's (t.TempDir()).
	Dir string
	// SourceDir is the source tree the binaries are built from; empty: the tree this test runs in. An upgrade test
	// builds an earlier release's tree (its ./cmd/...) with this tree's definition and builder.
	SourceDir string
}

// Image is one built image.
type Image struct {
	// Name is the image's name in the image vector (imagevector.ImageName*).
	Name string
	// Ref is the reference the archive names the image with, as containerd and the kubelet spell it
	// (registry/repository:tag); Repository and Tag are its parts, as chart values and image vector entries take them.
	Ref, Repository, Tag string
	// Archive is the image's archive (an OCI image layout and a docker-archive in one tar), for linux/Arch.
	Archive string
	// Arch is the image's GOARCH, this machine's.
	Arch string
	// Digest is the image's manifest digest, which containerd lists after the import.
	Digest string
}

// Built are the three images of one Build.
type Built struct {
	// Version is the version stamped into the binaries.
	Version string
	// SourceDir is the tree they were built from.
	SourceDir string
	// Images are the images by name (imagevector.ImageName*).
	Images map[string]Image
}

// Extension is the controller's image (the extension chart's Deployment).
func (b *Built) Extension() Image { return b.Images[imagevector.ImageNameExtension] }

// Admission is the admission webhook server's image (the admission runtime chart's Deployment).
func (b *Built) Admission() Image { return b.Images[imagevector.ImageNameAdmission] }

// Installation is the installation image (the installation DaemonSet the controller renders).
func (b *Built) Installation() Image { return b.Images[imagevector.ImageNameInstallation] }

// Build builds the three images from the tree this test runs in, for runtime.GOARCH, and writes their archives. It
// fails the test on any error of the build.
func Build(t testing.TB, opts Options) *Built {
	t.Helper()
	src := opts.SourceDir
	if src == "" {
		src = sourceDir(t)
	}
	if opts.Version == "" {
		opts.Version = readVersion(t, src)
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	b := images.Builder{SourceDir: src, BinDir: binDir(t, src, opts.Version), Version: opts.Version, Base: images.Synthetic}
	dir := opts.GVisorDir
	if dir == "" {
		dir = realcomponents.GVisorDir(t)
		sums, err := imagevector.EmbeddedReleaseSums()
		if err != nil {
			t.Fatal(err)
		}
		b.ReleaseSums = &sums
	}
	b.GVisorRelease = func(string) (string, error) { return dir, nil }

	refs := map[string]name.Tag{}
	for _, d := range images.Definitions() {
		ref, err := images.Reference(d.Name, opts.Version, opts.Registry, opts.Tag)
		if err != nil {
			t.Fatal(err)
		}
		refs[d.Name] = ref
	}
	unlock := lock(t, b.BinDir)
	archives, err := images.WriteArchives(t.Context(), b, runtime.GOARCH, images.Definitions(), refs, opts.Dir)
	unlock()
	if err != nil {
		t.Fatalf("building the images: %v", err)
	}
	built := &Built{Version: opts.Version, SourceDir: src, Images: map[string]Image{}}
	for _, a := range archives {
		built.Images[a.Name] = Image{
			Name: a.Name, Ref: images.ContainerdName(a.Ref), Repository: a.Ref.Context().Name(), Tag: a.Ref.TagStr(),
			Archive: a.File, Arch: a.Arch, Digest: a.Digest.String(),
		}
	}
	return built
}

// ImageVectorOverwrite is the image vector overwrite (Gardener's images_overwrite.yaml, the extension chart's
// top-level imageVectorOverwrite value) that points every image of the extension at these images.
func (b *Built) ImageVectorOverwrite(t testing.TB) string {
	t.Helper()
	refs := map[string]name.Tag{}
	for n, img := range b.Images {
		ref, err := name.NewTag(img.Repository+":"+img.Tag, name.StrictValidation)
		if err != nil {
			t.Fatal(err)
		}
		refs[n] = ref
	}
	data, err := images.ImageVectorOverwrite(refs)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// WriteImageVectorOverwrite writes ImageVectorOverwrite to a file of the test's and returns its path (for
// IMAGEVECTOR_OVERWRITE, render.Load, gvisor-render --image-vector-overwrite).
func (b *Built) WriteImageVectorOverwrite(t testing.TB) string {
	t.Helper()
	return writeFile(t, "images_overwrite.yaml", []byte(b.ImageVectorOverwrite(t)))
}

// ExtensionValues are the extension chart's values that run these images: the controller's image (pulled only if
// not present: the node has it from the import) and the imageVectorOverwrite for the images the controller renders.
func (b *Built) ExtensionValues(t testing.TB) map[string]any {
	t.Helper()
	return map[string]any{"image": imageValues(b.Extension()), "imageVectorOverwrite": b.ImageVectorOverwrite(t)}
}

// WriteExtensionValues writes ExtensionValues to a values file of the test's (helm install -f) and returns its path.
func (b *Built) WriteExtensionValues(t testing.TB) string {
	t.Helper()
	return writeValues(t, "extension-values.yaml", b.ExtensionValues(t))
}

// AdmissionValues are the admission runtime chart's values that run the admission image.
func (b *Built) AdmissionValues() map[string]any {
	return map[string]any{"image": imageValues(b.Admission())}
}

// WriteAdmissionValues writes AdmissionValues to a values file of the test's and returns its path.
func (b *Built) WriteAdmissionValues(t testing.TB) string {
	t.Helper()
	return writeValues(t, "admission-values.yaml", b.AdmissionValues())
}

// Read reads the image back from its archive, exactly as containerd imports it (manifest and digest included).
func (i Image) Read(t testing.TB) v1.Image {
	t.Helper()
	img, err := images.ReadArchive(i.Archive, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func imageValues(img Image) map[string]any {
	return map[string]any{"repository": img.Repository, "tag": img.Tag, "pullPolicy": "IfNotPresent"}
}

func writeValues(t testing.TB, file string, values map[string]any) string {
	t.Helper()
	data, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, file, data)
}

func writeFile(t testing.TB, file string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sourceDir is the root of the module the test runs in (its working directory is its package's).
func sourceDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(data), "module "+images.Module+"\n") {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod of %s above %s", images.Module, dir)
		}
	}
}

func readVersion(t testing.TB, src string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// binDir is the binaries' cache of the source tree src and version: below the tool cache, one per tree (a
// worktree's builds do not replace another's) and version (a test that builds two versions links each once).
func binDir(t testing.TB, src, version string) string {
	t.Helper()
	cache := os.Getenv("TOOLS_DIR")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(base, "runtime-gvisor")
	}
	dir := filepath.Join(cache, "test-images", fmt.Sprintf("%x", sha256.Sum256([]byte(src)))[:16], version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// lock takes the cache's lock, so that test packages building at the same time (go test runs them in parallel) do
// not link into the same files while another one reads them; it returns the unlock.
func lock(t testing.TB, dir string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("locking %s: %v", dir, err)
	}
	return func() { f.Close() } // closing the descriptor releases the flock
}
