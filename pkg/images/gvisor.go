// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// gvisorLayer is the gVisor release for arch at dest, and its version: every file the installer would accept (binaries.Load: each
// listed in SHA512SUMS with its sum, only release files, runsc and the shim present, ELF machine arch), and
// SHA512SUMS. runsc and the shim must be static linux/arch Go builds, and with ReleaseSums set the release must be
// the build the controller's anchor records.
func (b Builder) gvisorLayer(arch, dest string) (v1.Layer, string, error) {
	if b.GVisorRelease == nil {
		return nil, "", fmt.Errorf("the image carries the gVisor release, but the build has no gVisor release directory (Builder.GVisorRelease)")
	}
	dir, err := b.GVisorRelease(arch)
	if err != nil {
		return nil, "", fmt.Errorf("the gVisor release for linux/%s: %w", arch, err)
	}
	rel, err := binaries.Load(dir, arch)
	if err != nil {
		return nil, "", fmt.Errorf("the gVisor release in %s: %w", dir, err)
	}
	for _, name := range []string{nodecontract.Runsc, nodecontract.Shim} {
		if _, err := checkStatic(rel.File(name).Path, arch, nil); err != nil {
			return nil, "", err
		}
	}
	if b.ReleaseSums != nil {
		if err := matchSums(rel, *b.ReleaseSums, arch); err != nil {
			return nil, "", fmt.Errorf("the gVisor release in %s: %w", dir, err)
		}
	}
	entries := []entry{{path: path.Join(dest, nodecontract.SumsFile), mode: 0o644, source: filepath.Join(dir, nodecontract.SumsFile)}}
	for _, f := range rel.Files {
		entries = append(entries, entry{path: path.Join(dest, f.Name), mode: 0o755, source: f.Path})
	}
	l, err := newLayer(entries, b.epoch())
	return l, rel.Version(), err
}

// matchSums refuses a release whose files are not exactly the ones sums lists for arch, with their SHA-512: the
// controller built from this tree would pass these sums to the installers, which would refuse the image.
func matchSums(rel *binaries.Release, sums imagevector.ReleaseSums, arch string) error {
	want, ok := sums.Architectures[arch]
	if !ok {
		return fmt.Errorf("%s has no sums for %s (it has %s)", imagevector.SumsFile, arch, strings.Join(sums.Archs(), ", "))
	}
	var diffs []string
	for _, f := range rel.Files {
		if w, listed := want[f.Name]; !listed || w != f.Sum {
			diffs = append(diffs, f.Name)
		}
	}
	for name := range want {
		if rel.File(name) == nil {
			diffs = append(diffs, name+" (missing)")
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return fmt.Errorf("%s differs from the build %s records for %s (gVisor %s, %s), which the controller passes to every installer: "+
		"build the release with that toolchain (GOTOOLCHAIN=%s), or regenerate the sums with make gvisor-sums",
		strings.Join(diffs, ", "), imagevector.SumsFile, arch, sums.Version, sums.Go, sums.Go)
}
