// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package imagevector

import (
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// SumsFile is the generated file with the checksum anchor of the gVisor release (hack/gvisor-sums.sh).
const SumsFile = "imagevector/gvisor-sums.yaml"

// SumsKey is the top-level key of gvisor-sums.yaml, and of an operator's image vector overwrite that replaces the
// sums together with the installation image (Gardener's reader ignores keys it does not know).
const SumsKey = "gvisorReleaseSums"

//go:embed gvisor-sums.yaml
var sumsYAML []byte

// ReleaseSums is the checksum anchor of the gVisor release the installation image carries: the SHA-512 (hex) of
// every release file (runsc, containerd-shim-runsc-v1, gvisor-bin/*), per GOARCH. It lives in the controller, not
// in the image: the installer refuses a release in its image that does not match its node architecture's sums, so
// whoever controls the installation image cannot change what the nodes run. The image's own SHA512SUMS only
// catches corruption and architecture mix-ups.
type ReleaseSums struct {
	// Version is the gVisor version (GVISOR_VERSION) the sums are of.
	Version string `json:"version"`
	// Go is the toolchain that built them (GO_VERSION, the release's); informational.
	Go string `json:"go,omitempty"`
	// Architectures maps GOARCH to file name to SHA-512.
	Architectures map[string]map[string]string `json:"architectures"`
}

type sumsDocument struct {
	Sums *ReleaseSums `json:"gvisorReleaseSums"`
}

// EmbeddedReleaseSums returns the sums of gvisor-sums.yaml as this controller was built with them.
func EmbeddedReleaseSums() (ReleaseSums, error) {
	s, found, err := parseSums(SumsFile, sumsYAML)
	if err != nil {
		return ReleaseSums{}, err
	}
	if !found {
		return ReleaseSums{}, fmt.Errorf("%s has no %s: regenerate it with hack/gvisor-sums.sh", SumsFile, SumsKey)
	}
	return s, nil
}

// LoadReleaseSums returns the sums an operator's image vector overwrite sets under gvisorReleaseSums, which replace
// the embedded ones completely (an overwritten installation image carries another build); without the key, or
// without an overwrite file (empty name), the embedded sums.
func LoadReleaseSums(overwriteFile string) (ReleaseSums, error) {
	if overwriteFile != "" {
		data, err := os.ReadFile(overwriteFile)
		if err != nil {
			return ReleaseSums{}, fmt.Errorf("reading image vector overwrite %s for %s: %w", overwriteFile, SumsKey, err)
		}
		s, found, err := parseSums(overwriteFile, data)
		if err != nil {
			return ReleaseSums{}, err
		}
		if found {
			return s, nil
		}
	}
	return EmbeddedReleaseSums()
}

func parseSums(name string, data []byte) (ReleaseSums, bool, error) {
	var doc sumsDocument
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return ReleaseSums{}, false, fmt.Errorf("%s: %s is not valid: %w", name, SumsKey, err)
	}
	if doc.Sums == nil {
		return ReleaseSums{}, false, nil
	}
	if err := doc.Sums.Validate(); err != nil {
		return ReleaseSums{}, false, fmt.Errorf("%s: %s: %w", name, SumsKey, err)
	}
	return *doc.Sums, true, nil
}

// knownArchs are the node architectures the installation image is built for (pkg/images.Archs).
var knownArchs = map[string]bool{"amd64": true, "arm64": true}

// Validate checks the shape: a version, at least one known architecture, each with runsc and
// containerd-shim-runsc-v1 and only release file names, each sum 128 lowercase hex digits.
func (s ReleaseSums) Validate() error {
	const fix = "regenerate imagevector/gvisor-sums.yaml with hack/gvisor-sums.sh, or copy an architecture's SHA512SUMS of your own build"
	if s.Version == "" {
		return fmt.Errorf("version is empty; %s", fix)
	}
	if len(s.Architectures) == 0 {
		return fmt.Errorf("architectures is empty; %s", fix)
	}
	for _, arch := range s.Archs() {
		if !knownArchs[arch] {
			return fmt.Errorf("architectures.%s: not an architecture of the installation image (amd64, arm64)", arch)
		}
		files := s.Architectures[arch]
		for _, required := range []string{"runsc", "containerd-shim-runsc-v1"} {
			if _, ok := files[required]; !ok {
				return fmt.Errorf("architectures.%s: %s is missing; %s", arch, required, fix)
			}
		}
		for name, sum := range files {
			if clean := path.Clean(name); clean != name || (name != "runsc" && name != "containerd-shim-runsc-v1" && !strings.HasPrefix(name, "gvisor-bin/")) {
				return fmt.Errorf("architectures.%s: %q is not a gVisor release file (runsc, containerd-shim-runsc-v1, gvisor-bin/*)", arch, name)
			}
			if _, err := hex.DecodeString(sum); err != nil || len(sum) != 128 || strings.ToLower(sum) != sum {
				return fmt.Errorf("architectures.%s.%s: %q is not a SHA-512 (128 lowercase hex digits); %s", arch, name, sum, fix)
			}
		}
	}
	return nil
}

// Archs returns the architectures, sorted.
func (s ReleaseSums) Archs() []string {
	out := make([]string, 0, len(s.Architectures))
	for a := range s.Architectures {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// SHA512SUMS returns arch's sums in `sha512sum` format ("<sum>  <name>" per line, sorted by name), the format the
// installer reads (--release-sums); ok is false when the sums have no such architecture.
func (s ReleaseSums) SHA512SUMS(arch string) (string, bool) {
	files, ok := s.Architectures[arch]
	if !ok {
		return "", false
	}
	return FormatSHA512SUMS(files), true
}

// FormatSHA512SUMS formats sums (file name to hex SHA-512) in `sha512sum` format, "<sum>  <name>" per line sorted
// by name: the one writer of the format, for the release sums and for tests that build a release.
func FormatSHA512SUMS(sums map[string]string) string {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(sums[n] + "  " + n + "\n")
	}
	return b.String()
}
