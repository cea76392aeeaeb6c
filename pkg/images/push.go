// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Index returns the multi-arch OCI index of one image's per-architecture builds (by GOARCH), in the order of the
// architectures' names, each with its platform.
func Index(perArch map[string]v1.Image) (v1.ImageIndex, error) {
	archs := make([]string, 0, len(perArch))
	for a := range perArch {
		archs = append(archs, a)
	}
	sort.Strings(archs)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, a := range archs {
		cf, err := perArch[a].ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("reading the config of the %s image: %w", a, err)
		}
		if cf.Architecture != a || cf.OS != "linux" {
			return nil, fmt.Errorf("the image given for %s is for %s/%s", a, cf.OS, cf.Architecture)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: perArch[a], Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant},
		}})
	}
	return idx, nil
}

// Push pushes one image's per-architecture builds to ref as a multi-arch index (Index) and returns the index's
// digest. Layers the registry has are not uploaded again; base layers from another registry are copied.
func Push(ctx context.Context, ref name.Tag, perArch map[string]v1.Image, opts ...remote.Option) (v1.Hash, error) {
	idx, err := Index(perArch)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := remote.WriteIndex(ref, idx, append(opts, remote.WithContext(ctx))...); err != nil {
		return v1.Hash{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("digest of %s: %w", ref, err)
	}
	return d, nil
}
