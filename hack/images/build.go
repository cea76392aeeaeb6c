// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
)

// common are the flags of build and push.
type common struct {
	version, archs, registry, out string
	gvisorDirs                    gvisorDirs
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.version, "version", "", "version stamped into the binaries and naming the images (default: the VERSION file)")
	fs.StringVar(&c.archs, "archs", strings.Join(images.Archs(), " "), "architectures to build, separated by spaces or commas")
	fs.StringVar(&c.registry, "registry", "", "repository path to name the images under instead of images.yaml's ghcr.io/runtime-gvisor (for example localhost:5000/gvisor)")
	fs.StringVar(&c.out, "out", "bin/images", "output directory (archives; binaries and gVisor builds are kept below it for the next build)")
	c.gvisorDirs = gvisorDirs{}
	fs.Var(c.gvisorDirs, "gvisor-dir", "ARCH=DIR: the gVisor release for ARCH (hack/tools/gvisor-release.sh's output) instead of building it; repeatable")
}

// builder is the Builder both commands start from: this tree, the version, the anchor's sums, the gVisor releases.
func (c *common) builder() (images.Builder, error) {
	if c.version == "" {
		data, err := os.ReadFile("VERSION")
		if err != nil {
			return images.Builder{}, fmt.Errorf("no -version and no VERSION file (run from the repository's root): %w", err)
		}
		c.version = strings.TrimSpace(string(data))
	}
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		return images.Builder{}, err
	}
	epoch, err := sourceDateEpoch()
	if err != nil {
		return images.Builder{}, err
	}
	return images.Builder{
		SourceDir: ".", BinDir: filepath.Join(c.out, "bin"), Version: c.version, Revision: revision(), Epoch: epoch,
		GVisorRelease: c.gvisorRelease, ReleaseSums: &sums,
	}, nil
}

func (c *common) archList() []string {
	return strings.FieldsFunc(c.archs, func(r rune) bool { return r == ' ' || r == ',' })
}

// gvisorRelease is the gVisor release for arch: -gvisor-dir's, else a build of hack/tools/gvisor-release.sh below
// -out, kept per gVisor version and toolchain and built again only when it is incomplete.
func (c *common) gvisorRelease(arch string) (string, error) {
	if dir, ok := c.gvisorDirs[arch]; ok {
		return dir, nil
	}
	version, err := os.ReadFile("GVISOR_VERSION")
	if err != nil {
		return "", fmt.Errorf("reading GVISOR_VERSION: %w", err)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	dir, err := filepath.Abs(filepath.Join(c.out, "gvisor", strings.TrimSpace(string(version))+"-"+strings.TrimSpace(string(goVersion)), arch))
	if err != nil {
		return "", err
	}
	if _, err := binaries.Load(dir, arch); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "images: building the gVisor release for linux/%s (hack/tools/gvisor-release.sh; cold: minutes)\n", arch)
	cmd := exec.Command("hack/tools/gvisor-release.sh", arch, dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hack/tools/gvisor-release.sh %s: %w", arch, err)
	}
	return dir, nil
}

// gvisorDirs is the repeatable -gvisor-dir ARCH=DIR.
type gvisorDirs map[string]string

func (g gvisorDirs) String() string { return fmt.Sprint(map[string]string(g)) }
func (g gvisorDirs) Set(v string) error {
	arch, dir, ok := strings.Cut(v, "=")
	if !ok || arch == "" || dir == "" {
		return fmt.Errorf("want ARCH=DIR, got %q", v)
	}
	g[arch] = dir
	return nil
}

// sourceDateEpoch is SOURCE_DATE_EPOCH (the reproducible-builds convention), zero (Unix 0) when unset.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not seconds since 1970: %w", v, err)
	}
	return time.Unix(s, 0).UTC(), nil
}

// revision is the commit of the tree (with -dirty when it has changes), for the images' revision label; empty
// outside a git checkout.
func revision() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if status, err := exec.Command("git", "status", "--porcelain").Output(); err != nil || len(status) > 0 {
		rev += "-dirty"
	}
	return rev
}

func runBuild(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var c common
	c.register(fs)
	tag := fs.String("tag", "", "tag to name the images with instead of the one a build of -version renders")
	base := fs.String("base", "synthetic", "base of the images: synthetic (no registry needed) or pinned (pkg/images/bases.yaml, from the registry)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := c.builder()
	if err != nil {
		return err
	}
	switch *base {
	case "synthetic":
		b.Base = images.Synthetic
	case "pinned":
		if b.Base, err = pinnedBase(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-base must be synthetic or pinned, got %q", *base)
	}
	refs, err := references(c.version, c.registry, *tag)
	if err != nil {
		return err
	}
	for _, arch := range c.archList() {
		archives, err := images.WriteArchives(ctx, b, arch, images.Definitions(), refs, c.out)
		if err != nil {
			return err
		}
		for _, a := range archives {
			fmt.Fprintf(os.Stdout, "%s\t%s\t%s\t%s\n", a.Ref, a.Arch, a.Digest, a.File)
		}
	}
	return writeOverwrite(refs, filepath.Join(c.out, "images_overwrite.yaml"))
}

func references(version, registry, tag string) (map[string]name.Tag, error) {
	refs := map[string]name.Tag{}
	for _, d := range images.Definitions() {
		ref, err := images.Reference(d.Name, version, registry, tag)
		if err != nil {
			return nil, err
		}
		refs[d.Name] = ref
	}
	return refs, nil
}

func writeOverwrite(refs map[string]name.Tag, file string) error {
	data, err := images.ImageVectorOverwrite(refs)
	if err != nil {
		return err
	}
	if err := hostfs.WriteFileAtomic(file, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "images: wrote %s (imageVectorOverwrite for these references)\n", file)
	return nil
}

// pinnedBase is the release's base: bases.yaml's refs, each pinned by digest, from the registry.
func pinnedBase() (images.BaseLayers, error) {
	refs, err := images.PinnedBases()
	if err != nil {
		return nil, err
	}
	return images.Registry(refs, remote.WithAuthFromKeychain(authn.DefaultKeychain))
}
