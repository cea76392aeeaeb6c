// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
)

const testVersion = "v0.0.0-test"

// fakeRelease lays out a gVisor release whose runsc and shim are copies of gvisor-idle of the build in binDir (a
// static Go binary for the right architecture is all the builder checks of them), with its SHA512SUMS.
func fakeRelease(t *testing.T, binDir string) string {
	t.Helper()
	idle, err := os.ReadFile(filepath.Join(binDir, runtime.GOARCH, "gvisor-idle"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum := sha512.Sum512(idle)
	sums := map[string]string{}
	for _, n := range []string{"runsc", "containerd-shim-runsc-v1"} {
		if err := os.WriteFile(filepath.Join(dir, n), idle, 0o755); err != nil {
			t.Fatal(err)
		}
		sums[n] = hex.EncodeToString(sum[:])
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA512SUMS"), []byte(imagevector.FormatSHA512SUMS(sums)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// builder builds this tree with the synthetic base into binDir; the gVisor release is a fake one, made from the
// first build's binaries and shared with later builders through release.
func builder(t *testing.T, binDir string, release *string) images.Builder {
	return images.Builder{
		SourceDir: "../..", BinDir: binDir, Version: testVersion, Base: images.Synthetic,
		GVisorRelease: func(string) (string, error) {
			if *release == "" {
				*release = fakeRelease(t, binDir)
			}
			return *release, nil
		},
	}
}

func build(t *testing.T, b images.Builder, defs []images.Image) map[string]v1.Image {
	t.Helper()
	// The binaries are built before any image is assembled, so the fake release finds gvisor-idle.
	out, err := b.Build(context.Background(), runtime.GOARCH, defs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// digest is the digest of an image, an index or a layer.
func digest(t *testing.T, of interface{ Digest() (v1.Hash, error) }) string {
	t.Helper()
	d, err := of.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// TestBuild builds the three images of this tree (with a fake gVisor release) and checks them: two builds of the
// same input, each linking its binaries afresh, give the same digests (the second build only links the two smaller
// images' binaries again: the controller's link is the same linker, at twice their cost) and another version other
// ones; the content and config are the definition's; the archive is the image; another base changes nothing but
// the base layers.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries twice")
	}
	var release string
	binDir := t.TempDir()
	first := build(t, builder(t, binDir, &release), images.Definitions())
	t.Run("deterministic", func(t *testing.T) {
		smaller := images.Definitions()[1:]
		second := build(t, builder(t, t.TempDir(), &release), smaller)
		for _, d := range smaller {
			if a, b := digest(t, first[d.Name]), digest(t, second[d.Name]); a != b {
				t.Errorf("%s: two builds of the same input gave %s and %s", d.Name, a, b)
			}
		}
		other := builder(t, t.TempDir(), &release)
		other.Version = "v9.9.9"
		built := build(t, other, smaller)
		if digest(t, built[imagevector.ImageNameAdmission]) == digest(t, first[imagevector.ImageNameAdmission]) {
			t.Errorf("another version gave the same digest")
		}
	})
	t.Run("content", func(t *testing.T) { checkContent(t, first) })
	t.Run("archive", func(t *testing.T) { checkArchive(t, first[imagevector.ImageNameInstallation]) })
	t.Run("config independent of the base", func(t *testing.T) { checkOtherBase(t, builder(t, binDir, &release), first) })
	t.Run("registry base and push", func(t *testing.T) { checkRegistry(t, builder(t, binDir, &release), first) })
}

// checkContent: each image has its binaries and the release at the definition's paths, with fixed owners, modes and
// times, on the synthetic base's users, and the config of the definition.
func checkContent(t *testing.T, built map[string]v1.Image) {
	t.Helper()
	want := map[string][]string{
		imagevector.ImageNameExtension:    {"gardener-extension-runtime-gvisor 0755 0:0"},
		imagevector.ImageNameAdmission:    {"gardener-extension-admission-runtime-gvisor 0755 0:0"},
		imagevector.ImageNameInstallation: {"gvisor-gpu-check 0755 0:0", "gvisor-idle 0755 0:0", "gvisor-installer 0755 0:0", "gvisor-metric-server 0755 0:0", "opt 0755 0:0", "opt/gvisor 0755 0:0", "opt/gvisor/SHA512SUMS 0644 0:0", "opt/gvisor/containerd-shim-runsc-v1 0755 0:0", "opt/gvisor/runsc 0755 0:0"},
	}
	base := []string{"etc 0755 0:0", "etc/group 0644 0:0", "etc/passwd 0644 0:0", "home 0755 0:0", "home/nonroot 0700 65532:65532", "root 0700 0:0", "tmp 1777 0:0"}
	for _, d := range images.Definitions() {
		img := built[d.Name]
		got := listFiles(t, img)
		if diff := cmp.Diff(sortedCopy(append(append([]string(nil), base...), want[d.Name]...)), sortedCopy(got)); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", d.Name, diff)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || cf.Created.Unix() != 0 {
			t.Errorf("%s: platform %s/%s, created %s", d.Name, cf.OS, cf.Architecture, cf.Created)
		}
		c := cf.Config
		if !cmp.Equal(c.Entrypoint, d.Entrypoint) || !cmp.Equal(c.Cmd, d.Cmd) || c.User != d.User || !cmp.Equal(c.Env, d.Env) || c.WorkingDir != d.WorkingDir ||
			c.Labels["org.opencontainers.image.version"] != testVersion || c.Labels["org.opencontainers.image.source"] != images.Source {
			t.Errorf("%s: config %+v, want the definition's", d.Name, c)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// listFiles lists the image's flattened file system as "name mode uid:gid", and checks every entry's time.
func listFiles(t *testing.T, img v1.Image) []string {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var out []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.ModTime.Unix() != 0 {
			t.Errorf("%s has time %s", hdr.Name, hdr.ModTime)
		}
		out = append(out, fmt.Sprintf("%s %04o %d:%d", hdr.Name, hdr.Mode, hdr.Uid, hdr.Gid))
	}
}

// checkArchive: the archive is deterministic, an OCI layout whose image is img to the digest, named for containerd,
// and a docker-archive go-containerregistry's docker reader reads with the same config.
func checkArchive(t *testing.T, img v1.Image) {
	t.Helper()
	ref, err := name.NewTag("registry.test/gvisor/runtime-gvisor-installation:v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a.tar")
	if err := images.WriteArchiveFile(file, ref, img, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := images.WriteArchive(&again, ref, img, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again.Bytes()) {
		t.Errorf("two archives of the same image differ")
	}
	read, err := images.ReadArchive(file, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if digest(t, read) != digest(t, img) {
		t.Errorf("the archive's image is %s, want %s", digest(t, read), digest(t, img))
	}
	index := entry(t, data, "index.json")
	if !strings.Contains(index, `"io.containerd.image.name":"registry.test/gvisor/runtime-gvisor-installation:v1.2.3"`) ||
		!strings.Contains(index, `"org.opencontainers.image.ref.name":"v1.2.3"`) {
		t.Errorf("index.json does not name the image for containerd: %s", index)
	}
	docker, err := tarball.ImageFromPath(file, &ref)
	if err != nil {
		t.Fatalf("the archive is no docker-archive: %v", err)
	}
	want, _ := img.ConfigName()
	if got, err := docker.ConfigName(); err != nil || got != want {
		t.Errorf("docker-archive config %s (%v), want %s", got, err, want)
	}
}

func entry(t *testing.T, archive []byte, name string) string {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the archive: %v", name, err)
		}
		if hdr.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
}

// checkOtherBase: a base of three other layers gives the same config but for the base's layers.
func checkOtherBase(t *testing.T, b images.Builder, synthetic map[string]v1.Image) {
	t.Helper()
	b.Base = func(context.Context, images.Base, string) ([]v1.Layer, error) {
		var out []v1.Layer
		for i := 0; i < 3; i++ {
			l, err := random.Layer(64, "application/vnd.oci.image.layer.v1.tar+gzip")
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
		return out, nil
	}
	other, err := b.Build(context.Background(), runtime.GOARCH, images.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range images.Definitions() {
		a, o := configWithoutBase(t, synthetic[d.Name], 1), configWithoutBase(t, other[d.Name], 3)
		if diff := cmp.Diff(a, o); diff != "" {
			t.Errorf("%s: config differs with another base (-synthetic +other):\n%s", d.Name, diff)
		}
	}
}

// configWithoutBase is the image's config with the base's diff IDs and history entries (the first baseLayers) cut.
func configWithoutBase(t *testing.T, img v1.Image, baseLayers int) *v1.ConfigFile {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	if len(cf.RootFS.DiffIDs) < baseLayers || len(cf.History) != len(cf.RootFS.DiffIDs) {
		t.Fatalf("%d layers, %d history entries", len(cf.RootFS.DiffIDs), len(cf.History))
	}
	for _, h := range cf.History[:baseLayers] {
		if !strings.HasPrefix(h.CreatedBy, "pkg/images: base ") {
			t.Errorf("base layer's history %q", h.CreatedBy)
		}
	}
	cf.RootFS.DiffIDs, cf.History = cf.RootFS.DiffIDs[baseLayers:], cf.History[baseLayers:]
	return cf
}

// checkRegistry: on bases from a registry (a multi-arch index pinned by digest, as bases.yaml pins distroless) the
// images get that base's layers for their architecture and the same config; Push writes a multi-arch index whose
// manifests are the built images, to the digest.
func checkRegistry(t *testing.T, b images.Builder, synthetic map[string]v1.Image) {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	base := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var want []v1.Layer
	for _, arch := range images.Archs() {
		img, err := random.Image(256, 2)
		if err != nil {
			t.Fatal(err)
		}
		if arch == runtime.GOARCH {
			if want, err = img.Layers(); err != nil {
				t.Fatal(err)
			}
		}
		base = mutate.AppendManifests(base, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}}})
	}
	tag, err := name.NewTag(host + "/distroless/static:nonroot")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(tag, base); err != nil {
		t.Fatal(err)
	}
	d, err := base.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := images.Registry(map[images.Base]string{images.BaseStaticNonroot: tag.String()}); err == nil {
		t.Errorf("Registry accepted a base without a digest")
	}
	if b.Base, err = images.Registry(map[images.Base]string{images.BaseStaticNonroot: tag.String() + "@" + d.String()}); err != nil {
		t.Fatal(err)
	}
	defs := images.Definitions()[:2] // the nonroot ones
	built := build(t, b, defs)
	for _, def := range defs {
		layers, err := built[def.Name].Layers()
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range want {
			if got, want := digest(t, layers[i]), digest(t, l); got != want {
				t.Errorf("%s: base layer %d is %s, want the registry's %s", def.Name, i, got, want)
			}
		}
		if diff := cmp.Diff(configWithoutBase(t, synthetic[def.Name], 1), configWithoutBase(t, built[def.Name], len(want))); diff != "" {
			t.Errorf("%s: the registry base changes the config (-synthetic +registry):\n%s", def.Name, diff)
		}
	}

	ref, err := name.NewTag(host + "/gvisor/" + imagevector.ImageNameAdmission + ":v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	img := built[imagevector.ImageNameAdmission]
	pushed, err := images.Push(context.Background(), ref, map[string]v1.Image{runtime.GOARCH: img})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Digest(); got != pushed || len(m.Manifests) != 1 || m.Manifests[0].Digest.String() != digest(t, img) ||
		m.Manifests[0].Platform == nil || m.Manifests[0].Platform.Architecture != runtime.GOARCH {
		t.Errorf("pushed index %s: %+v, want one manifest %s for %s", got, m.Manifests, digest(t, img), runtime.GOARCH)
	}
}
