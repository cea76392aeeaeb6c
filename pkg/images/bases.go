// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"sigs.k8s.io/yaml"
)

// BasesFile is the file with the release's base image refs, in the repository (hack/pin-base-images.sh rewrites it).
const BasesFile = "pkg/images/bases.yaml"

//go:embed bases.yaml
var basesYAML []byte

// BaseLayers returns the layers an image of the given kind of base is layered onto, for linux/arch.
type BaseLayers func(ctx context.Context, base Base, arch string) ([]v1.Layer, error)

// PinnedBases returns the base image refs of bases.yaml by kind, each a valid reference (pinned by digest or not:
// Registry refuses those without).
func PinnedBases() (map[Base]string, error) { return ParseBases(basesYAML) }

// ParseBases parses a file in the format of bases.yaml, as PinnedBases does.
func ParseBases(data []byte) (map[Base]string, error) {
	var refs map[Base]string
	if err := yaml.UnmarshalStrict(data, &refs); err != nil {
		return nil, fmt.Errorf("%s: %w", BasesFile, err)
	}
	kinds := []Base{BaseStatic, BaseStaticNonroot}
	if len(refs) != len(kinds) {
		return nil, fmt.Errorf("%s has %d entries, want exactly %v", BasesFile, len(refs), kinds)
	}
	for _, b := range kinds {
		if _, err := name.ParseReference(refs[b], name.StrictValidation); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", BasesFile, b, err)
		}
	}
	return refs, nil
}

// syntheticEpoch is the timestamp of the synthetic base layer, which is the same for every build.
var syntheticEpoch = time.Unix(0, 0).UTC()

// Synthetic is the base for tests and local builds, which needs no registry: one layer with what our static binaries
// need from distroless, its users and groups (root and nonroot 65532, as distroless names them), root's and nonroot's
// home directories and /tmp (1777). The same layer serves both kinds of base: the user is the image config's.
func Synthetic(context.Context, Base, string) ([]v1.Layer, error) {
	l, err := newLayer([]entry{
		{path: "/etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "/etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		{path: "/home/nonroot", dir: true, mode: 0o700, uid: 65532, gid: 65532},
		{path: "/root", dir: true, mode: 0o700},
		{path: "/tmp", dir: true, mode: 0o1777},
	}, syntheticEpoch)
	if err != nil {
		return nil, fmt.Errorf("building the synthetic base layer: %w", err)
	}
	return []v1.Layer{l}, nil
}

// Registry returns the base layers from the multi-arch images refs names by kind (PinnedBases), for releases: each
// ref must carry a digest, so that the release is built on exactly the image that was reviewed when it was pinned.
func Registry(refs map[Base]string, opts ...remote.Option) (BaseLayers, error) {
	digests := map[Base]name.Digest{}
	for kind, ref := range refs {
		d, err := name.NewDigest(ref, name.StrictValidation)
		if err != nil {
			return nil, fmt.Errorf("base %s %q is not pinned by digest (%w): run hack/pin-base-images.sh and commit %s", kind, ref, err, BasesFile)
		}
		digests[kind] = d
	}
	return func(ctx context.Context, base Base, arch string) ([]v1.Layer, error) {
		d, ok := digests[base]
		if !ok {
			return nil, fmt.Errorf("no base image for %q in %s", base, BasesFile)
		}
		return registryLayers(ctx, d, arch, opts)
	}, nil
}

// registryLayers returns the layers of the linux/arch image of the index d names.
func registryLayers(ctx context.Context, d name.Digest, arch string, opts []remote.Option) ([]v1.Layer, error) {
	idx, err := remote.Index(d, append(opts, remote.WithContext(ctx))...)
	if err != nil {
		return nil, fmt.Errorf("reading base image %s: %w", d, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading base image %s: %w", d, err)
	}
	for _, desc := range m.Manifests {
		if p := desc.Platform; p != nil && p.OS == "linux" && p.Architecture == arch && (p.Variant == "" || p.Variant == variant(arch)) {
			img, err := idx.Image(desc.Digest)
			if err != nil {
				return nil, fmt.Errorf("reading base image %s for linux/%s: %w", d, arch, err)
			}
			layers, err := img.Layers()
			if err != nil {
				return nil, fmt.Errorf("reading the layers of base image %s for linux/%s: %w", d, arch, err)
			}
			return layers, nil
		}
	}
	return nil, fmt.Errorf("base image %s has no linux/%s image (it has %s)", d, arch, platforms(m))
}

func platforms(m *v1.IndexManifest) string {
	var out []string
	for _, d := range m.Manifests {
		if d.Platform != nil {
			out = append(out, d.Platform.String())
		}
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

// variant is the platform variant of arch in image indexes (arm64 images are linux/arm64/v8).
func variant(arch string) string {
	if arch == "arm64" {
		return "v8"
	}
	return ""
}
