// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// Archs returns the architectures the images are built for (the nodes' and the seeds').
func Archs() []string { return []string{"amd64", "arm64"} }

// Builder builds the images of Definitions from a source tree, for one architecture at a time. Its fields are the
// build's whole input besides the source tree and the Go toolchain: the same input gives the same images, to the
// digest.
type Builder struct {
	// SourceDir is the module's root; the binaries are built from its ./cmd/<command>.
	SourceDir string
	// BinDir is where the binaries are built, in <BinDir>/<arch>/. Keep it across builds: go build does not link
	// again a binary that is up to date there, which makes a warm build take seconds.
	BinDir string
	// Version is stamped into every binary (pkg/version.Version, as `make build`) and labels the images.
	Version string
	// Revision is the source commit, the org.opencontainers.image.revision label; empty leaves the label out.
	Revision string
	// Epoch is every timestamp in the images (config, history, files); zero means Unix 0.
	Epoch time.Time
	// Base returns the layers under each image: Registry(PinnedBases()) for releases, Synthetic otherwise.
	Base BaseLayers
	// GVisorRelease returns the directory of the gVisor release for an architecture (hack/tools/gvisor-release.sh's
	// output); only the installation image needs it.
	GVisorRelease func(arch string) (string, error)
	// ReleaseSums, if set, are the sums each architecture's gVisor release must have: the checksum anchor the
	// controller of this tree embeds (imagevector.EmbeddedReleaseSums), without which its installers refuse it.
	ReleaseSums *imagevector.ReleaseSums
	// GoVersion, if set, is the toolchain (go1.x.y) every binary must have been built with: a release must be
	// reproducible, which Go builds are for the same toolchain only (GO_VERSION, ReadGoVersion).
	GoVersion string
}

// versionPattern is what Version may be: it goes into -ldflags, so nothing a shell or the linker would split.
var versionPattern = regexp.MustCompile(`^v?[0-9A-Za-z][0-9A-Za-z.+_-]*$`)

// Build builds defs for linux/arch and returns them by name. Every binary is checked for its architecture and static
// linking, the gVisor release for its checksums (and ReleaseSums), before any image is assembled.
func (b Builder) Build(ctx context.Context, arch string, defs []Image) (map[string]v1.Image, error) {
	if !versionPattern.MatchString(b.Version) {
		return nil, fmt.Errorf("version %q is not a version (for example v0.2.0 or v0.2.0-dev)", b.Version)
	}
	if !isArch(arch) {
		return nil, fmt.Errorf("architecture %q is not one of %v", arch, Archs())
	}
	if b.Base == nil {
		return nil, fmt.Errorf("no base for the images: set Builder.Base to Synthetic or Registry(...)")
	}
	binDir, err := b.buildBinaries(ctx, arch, defs)
	if err != nil {
		return nil, err
	}
	out := map[string]v1.Image{}
	for _, d := range defs {
		img, err := b.assemble(ctx, d, arch, binDir)
		if err != nil {
			return nil, fmt.Errorf("image %s for linux/%s: %w", d.Name, arch, err)
		}
		out[d.Name] = img
	}
	return out, nil
}

func isArch(arch string) bool {
	for _, a := range Archs() {
		if a == arch {
			return true
		}
	}
	return false
}

func (b Builder) epoch() time.Time {
	if b.Epoch.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return b.Epoch.UTC().Truncate(time.Second)
}

// assemble layers d's own files onto its base and sets its whole config.
func (b Builder) assemble(ctx context.Context, d Image, arch, binDir string) (v1.Image, error) {
	if err := checkPaths(d); err != nil {
		return nil, err
	}
	created := v1.Time{Time: b.epoch()}
	base, err := b.Base(ctx, d.Base, arch)
	if err != nil {
		return nil, err
	}
	var adds []mutate.Addendum
	add := func(l v1.Layer, what string) {
		adds = append(adds, mutate.Addendum{Layer: l, MediaType: types.OCILayer,
			History: v1.History{Created: created, CreatedBy: "pkg/images: " + what}})
	}
	for _, l := range base {
		add(l, "base "+string(d.Base)) // the same for distroless and Synthetic: only the layers differ
	}
	if d.GVisorRelease != "" {
		l, version, err := b.gvisorLayer(arch, d.GVisorRelease)
		if err != nil {
			return nil, err
		}
		add(l, "gVisor release "+version+" at "+d.GVisorRelease)
	}
	l, err := b.binaryLayer(d, binDir)
	if err != nil {
		return nil, err
	}
	add(l, "binaries "+strings.Join(binaryPaths(d), " ")+" "+b.Version)

	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	if img, err = mutate.Append(img, adds...); err != nil {
		return nil, fmt.Errorf("adding the layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Variant, cf.Created = arch, "linux", variant(arch), created
	cf.Config = b.config(d)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, fmt.Errorf("setting the config: %w", err)
	}
	return img, nil
}

// config is d's whole image config: nothing is inherited from the base.
func (b Builder) config(d Image) v1.Config {
	labels := map[string]string{
		"org.opencontainers.image.title":    d.Title,
		"org.opencontainers.image.version":  b.Version,
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	if b.Revision != "" {
		labels["org.opencontainers.image.revision"] = b.Revision
	}
	return v1.Config{
		Entrypoint: append([]string(nil), d.Entrypoint...),
		Cmd:        append([]string(nil), d.Cmd...),
		User:       d.User,
		Env:        append([]string(nil), d.Env...),
		WorkingDir: d.WorkingDir,
		Labels:     labels,
	}
}

func (b Builder) binaryLayer(d Image, binDir string) (v1.Layer, error) {
	var entries []entry
	for _, bin := range d.Binaries {
		if bin.OwnModule && !b.hasOwnModule(bin.Command) {
			continue // not in this (earlier) source tree: hasOwnModule
		}
		entries = append(entries, entry{path: bin.Path, mode: 0o755, source: filepath.Join(binDir, bin.Command)})
	}
	return newLayer(entries, b.epoch())
}

func binaryPaths(d Image) []string {
	out := make([]string, 0, len(d.Binaries))
	for _, bin := range d.Binaries {
		out = append(out, bin.Path)
	}
	return out
}

// checkPaths refuses a definition whose paths are not absolute and clean: they are the charts' commands.
func checkPaths(d Image) error {
	paths := binaryPaths(d)
	if d.GVisorRelease != "" {
		paths = append(paths, d.GVisorRelease)
	}
	for _, p := range paths {
		if !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
			return fmt.Errorf("path %q is not absolute and clean", p)
		}
	}
	return nil
}
