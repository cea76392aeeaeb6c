// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// The files a release pins its images' digests in (imagevector/README.md, "Images by digest"), relative to the
// repository's root.
const (
	imagesFile            = "imagevector/images.yaml"
	extensionChartFile    = "charts/gardener-extension-runtime-gvisor/Chart.yaml"
	admissionChartFile    = "charts/gardener-extension-admission-runtime-gvisor/charts/runtime/Chart.yaml"
	installationValues    = "charts/internal/gvisor-installation/values.yaml"
	installationChartDocs = "charts/internal/gvisor-installation/README.md"
)

// pinLocation is where the release pins one image's digest, and whether the controller image embeds it.
type pinLocation struct {
	file string
	// embedded: the controller image carries this file (go:embed), so the image must be built after the pin.
	embedded bool
}

// pinLocations are the files each image's digest is pinned in: the installation image where the controller
// renders it from (images.yaml, and the installation chart's default), the admission image in images.yaml and the
// admission runtime chart, the controller image in the extension chart only (it embeds images.yaml).
var pinLocations = map[string][]pinLocation{
	imagevector.ImageNameInstallation: {{imagesFile, true}, {installationValues, true}},
	imagevector.ImageNameAdmission:    {{imagesFile, true}, {admissionChartFile, false}},
	imagevector.ImageNameExtension:    {{extensionChartFile, false}},
}

// leafImages are the images no other image embeds a pin of; they are built and pinned first.
func leafImages() []string {
	return []string{imagevector.ImageNameAdmission, imagevector.ImageNameInstallation}
}

// writePins pins version and the digests (by image name) into the files of the tree at root.
func writePins(root, version string, digests map[string]string) error {
	byFile := map[string]map[string]string{}
	for name, digest := range digests {
		locs, ok := pinLocations[name]
		if !ok {
			return fmt.Errorf("no pin location for image %q", name)
		}
		for _, l := range locs {
			if byFile[l.file] == nil {
				byFile[l.file] = map[string]string{}
			}
			byFile[l.file][name] = digest
		}
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		path := filepath.Join(root, f)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var out []byte
		switch f {
		case imagesFile:
			out, err = imagevector.PinDigests(data, version, byFile[f])
		case installationValues:
			out, err = pinInstallationDefault(data, version, byFile[f][imagevector.ImageNameInstallation])
		default:
			for _, digest := range byFile[f] {
				out, err = imagevector.PinChartDigest(data, digest)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
		if f == installationValues {
			if err := pinInstallationDocs(root, version, byFile[f][imagevector.ImageNameInstallation]); err != nil {
				return err
			}
		}
	}
	return nil
}

// installationImageLine is the installation chart's default image (a full reference) in its values.yaml.
var installationImageLine = regexp.MustCompile(`(?m)^image: (ghcr\.io/runtime-gvisor/runtime-gvisor-installation):(\S*)$`)

// pinInstallationDefault sets the installation chart's default image to the release's, by digest.
func pinInstallationDefault(data []byte, version, digest string) ([]byte, error) {
	if !installationImageLine.Match(data) {
		return nil, fmt.Errorf("no line `image: ghcr.io/runtime-gvisor/runtime-gvisor-installation:...` to pin")
	}
	return installationImageLine.ReplaceAll(data, []byte("image: ${1}:"+version+"@"+digest)), nil
}

// pinInstallationDocs shows the same default in the chart's README values table.
func pinInstallationDocs(root, version, digest string) error {
	path := filepath.Join(root, installationChartDocs)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	re := regexp.MustCompile("(ghcr\\.io/runtime-gvisor/runtime-gvisor-installation:)[^`]*")
	return os.WriteFile(path, re.ReplaceAll(data, []byte("${1}"+version+"@"+digest)), 0o644)
}

// readPins returns the digest each image's files in the tree at root pin for version; an image whose files pin
// none, another version, or disagree is an error naming the file.
func readPins(root, version string) (map[string]string, error) {
	pins := map[string]string{}
	for name, locs := range pinLocations {
		for _, l := range locs {
			digest, err := readPin(filepath.Join(root, l.file), l.file, name, version)
			if err != nil {
				return nil, err
			}
			if prev, ok := pins[name]; ok && prev != digest {
				return nil, fmt.Errorf("%s pins %s for %s, another file %s: run hack/release.sh %s", l.file, digest, name, prev, version)
			}
			pins[name] = digest
		}
	}
	return pins, nil
}

func readPin(path, file, name, version string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var digest string
	switch file {
	case imagesFile:
		vector, err := imagevector.Parse(data, "v0.0.0-dev") // the pin as written, not a release build's rendering
		if err != nil {
			return "", err
		}
		img, err := vector.FindImage(name)
		if err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		tag, d, _ := strings.Cut(*img.Tag, "@")
		if tag != version {
			return "", fmt.Errorf("%s pins %s for %s, not the release %s: run hack/release.sh %s", file, tag, name, version, version)
		}
		digest = d
	case installationValues:
		m := installationImageLine.FindSubmatch(data)
		if m == nil {
			return "", fmt.Errorf("%s has no default installation image", file)
		}
		tag, d, _ := strings.Cut(string(m[2]), "@")
		if tag != version {
			return "", fmt.Errorf("%s names %s:%s, not the release %s: run hack/release.sh %s", file, m[1], m[2], version, version)
		}
		digest = d
	default:
		var meta struct {
			AppVersion  string            `json:"appVersion"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := yaml.Unmarshal(data, &meta); err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		if meta.AppVersion != version {
			return "", fmt.Errorf("%s has appVersion %s, not the release %s: run hack/release.sh %s", file, meta.AppVersion, version, version)
		}
		digest = meta.Annotations[imagevector.ImageDigestAnnotation]
	}
	if err := imagevector.CheckDigest(digest); err != nil {
		return "", fmt.Errorf("%s pins no digest for %s (%w): run hack/release.sh %s, which builds the images and pins them", file, name, err, version)
	}
	return digest, nil
}

// verifyPins refuses a push whose images are not the ones the release pinned: each built image's digest must be
// the one its files pin. A difference means another tree, toolchain, base or SOURCE_DATE_EPOCH than the pin's.
func verifyPins(built, pinned map[string]string) error {
	names := make([]string, 0, len(pinned))
	for n := range pinned {
		names = append(names, n)
	}
	sort.Strings(names)
	var bad []string
	for _, n := range names {
		if built[n] != pinned[n] {
			bad = append(bad, fmt.Sprintf("%s built as %s, pinned %s", n, built[n], pinned[n]))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the images built here are not the release's pinned ones (%s): push from the commit hack/release.sh made, with GO_VERSION's toolchain, the bases of pkg/images/bases.yaml and the SOURCE_DATE_EPOCH of the pin (default 0)",
			strings.Join(bad, "; "))
	}
	return nil
}
