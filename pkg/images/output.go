// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Archive is one image written as an archive for one architecture.
type Archive struct {
	// Name is the image's name in the image vector.
	Name string
	// Arch is the image's GOARCH.
	Arch string
	// Ref is the reference the archive names the image with, which `ctr images import` gives it.
	Ref name.Tag
	// File is the archive.
	File string
	// Digest is the image's manifest digest, which containerd reports after the import (and a push of the same
	// build has).
	Digest v1.Hash
}

// ArchiveFile is the archive's file name for the named image and architecture, in the output directory.
func ArchiveFile(imageName, arch string) string { return imageName + "-linux-" + arch + ".tar" }

// WriteArchives builds defs for linux/arch with b and writes each to dir/ArchiveFile, named refs[def.Name].
func WriteArchives(ctx context.Context, b Builder, arch string, defs []Image, refs map[string]name.Tag, dir string) ([]Archive, error) {
	for _, d := range defs {
		if _, ok := refs[d.Name]; !ok {
			return nil, fmt.Errorf("no reference for image %s", d.Name)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	built, err := b.Build(ctx, arch, defs)
	if err != nil {
		return nil, err
	}
	out := make([]Archive, 0, len(defs))
	for _, d := range defs {
		img := built[d.Name]
		a := Archive{Name: d.Name, Arch: arch, Ref: refs[d.Name], File: filepath.Join(dir, ArchiveFile(d.Name, arch))}
		if a.Digest, err = img.Digest(); err != nil {
			return nil, fmt.Errorf("digest of %s: %w", d.Name, err)
		}
		if err := WriteArchiveFile(a.File, a.Ref, img, b.epoch()); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
