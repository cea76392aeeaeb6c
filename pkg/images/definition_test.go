// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
)

// TestDefinitionsAreTheImageVectors: one definition per image of ours in images.yaml, each with a command of ours
// as entrypoint.
func TestDefinitionsAreTheImageVectors(t *testing.T) {
	var names []string
	for _, d := range images.Definitions() {
		names = append(names, d.Name)
		if _, err := images.Reference(d.Name, "v0.0.0-dev", "", ""); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		if len(d.Entrypoint) != 1 || len(d.Binaries) == 0 || d.Entrypoint[0] != d.Binaries[0].Path {
			t.Errorf("%s: entrypoint %v, want its first binary", d.Name, d.Entrypoint)
		}
		if _, err := os.Stat("../../cmd/" + d.Binaries[0].Command); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(sums.Archs(), ","), strings.Join(images.Archs(), ","); got != want {
		t.Errorf("%s has sums for %s, the images are built for %s", imagevector.SumsFile, got, want)
	}
	want := imagevector.ImageNameExtension + "," + imagevector.ImageNameAdmission + "," + imagevector.ImageNameInstallation
	if got := strings.Join(names, ","); got != want {
		t.Errorf("definitions %s, want %s", got, want)
	}
}

// TestLDFlagsAreTheMakefiles: the images' binaries are linked as `make build` links them, and Module is go.mod's.
func TestLDFlagsAreTheMakefiles(t *testing.T) {
	makefile := readFile(t, "../../Makefile")
	m := regexp.MustCompile(`(?m)^LD_FLAGS\s*:=\s*(.+)$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile has no LD_FLAGS")
	}
	got := strings.NewReplacer("$(MODULE)", images.Module, "$(VERSION)", "v1.2.3").Replace(strings.TrimSpace(m[1]))
	if want := images.LDFlags("v1.2.3"); got != want {
		t.Errorf("Makefile's LD_FLAGS are %q, the images' %q", got, want)
	}
	if !strings.Contains(makefile, "MODULE       := "+images.Module+"\n") || !strings.HasPrefix(readFile(t, "../../go.mod"), "module "+images.Module+"\n") {
		t.Errorf("the Makefile's MODULE or go.mod's module is not %s", images.Module)
	}
}

// TestPinnedBases: bases.yaml names a reference per kind of base; pinned ones (with a digest) are what releases
// need.
func TestPinnedBases(t *testing.T) {
	refs, err := images.PinnedBases()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []images.Base{images.BaseStatic, images.BaseStaticNonroot} {
		if !strings.HasPrefix(refs[b], "gcr.io/distroless/static-debian12") {
			t.Errorf("%s: %q, want distroless static", b, refs[b])
		}
	}
	if !strings.Contains(refs[images.BaseStaticNonroot], ":nonroot") {
		t.Errorf("staticNonroot %q is not distroless's nonroot variant", refs[images.BaseStaticNonroot])
	}
}

// TestReference: the default is what imagevector renders for the version; registry and tag replace their parts.
func TestReference(t *testing.T) {
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ version, registry, tag, want string }{
		{"v0.1.0-dev", "", "", "ghcr.io/runtime-gvisor/runtime-gvisor-installation:" + pinned},
		{"v9.8.7", "", "", "ghcr.io/runtime-gvisor/runtime-gvisor-installation:v9.8.7"},
		{"v9.8.7", "localhost:5000/test/", "", "localhost:5000/test/runtime-gvisor-installation:v9.8.7"},
		{"v0.1.0-dev", "registry.test", "this-tree", "registry.test/runtime-gvisor-installation:this-tree"},
	} {
		ref, err := images.Reference(imagevector.ImageNameInstallation, tc.version, tc.registry, tc.tag)
		if err != nil || ref.String() != tc.want {
			t.Errorf("Reference(%s, %q, %q) = %s, %v; want %s", tc.version, tc.registry, tc.tag, ref, err, tc.want)
		}
	}
	if _, err := images.Reference(imagevector.ImageNameInstallation, "v1.0.0", "", "bad tag"); err == nil {
		t.Errorf("an invalid tag was accepted")
	}
	hub, err := name.NewTag("busybox:1")
	if err != nil {
		t.Fatal(err)
	}
	if got := images.ContainerdName(hub); got != "docker.io/library/busybox:1" {
		t.Errorf("ContainerdName(busybox:1) = %s, want containerd's docker.io/library/busybox:1", got)
	}
}

// TestGoVersion: GO_VERSION is an exact toolchain.
func TestGoVersion(t *testing.T) {
	v, err := images.ReadGoVersion("../..")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^go\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("ReadGoVersion = %q", v)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestPinScript: hack/pin-base-images.sh rewrites every ref of bases.yaml to its digest (from DIGEST_CMD), again
// from the tag when a ref is pinned already, and keeps the comments; the result is what Registry accepts.
func TestPinScript(t *testing.T) {
	dir := t.TempDir()
	bases := filepath.Join(dir, "bases.yaml")
	if err := os.WriteFile(bases, []byte(readFile(t, "bases.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + strings.Repeat("ab", 32)
	stub := filepath.Join(dir, "digest")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho "+digest+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		cmd := exec.Command("bash", "../../hack/pin-base-images.sh")
		cmd.Env = append(os.Environ(), "BASES_FILE="+bases, "DIGEST_CMD="+stub)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	data := readFile(t, bases)
	refs, err := images.ParseBases([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	original, err := images.PinnedBases()
	if err != nil {
		t.Fatal(err)
	}
	for kind, ref := range refs {
		if want := strings.SplitN(original[kind], "@", 2)[0] + "@" + digest; ref != want {
			t.Errorf("%s pinned to %s, want %s", kind, ref, want)
		}
	}
	if _, err := images.Registry(refs); err != nil {
		t.Errorf("Registry refuses the pinned bases: %v", err)
	}
	if _, err := images.Registry(original); err == nil && !strings.Contains(readFile(t, "bases.yaml"), "@sha256:") {
		t.Errorf("Registry accepted bases without digests")
	}
	if !strings.HasPrefix(data, "# Base images") {
		t.Errorf("the comments are gone:\n%s", data)
	}
}
