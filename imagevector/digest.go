// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package imagevector

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"
)

// A release pins the images the controller deploys by digest: images.yaml's tag is then `vX.Y.Z@sha256:<hex>`
// (Gardener's image vector format renders it as repository:vX.Y.Z@sha256:<hex>), and a node pulls exactly that
// image whatever the tag names meanwhile. The controller image itself is pinned in the extension chart
// (Chart.yaml's ImageDigestAnnotation): it embeds this file, so its own digest cannot be in it.

// Pin is what images.yaml pins for one of our images.
type Pin struct {
	// Version is the release, the tag.
	Version string
	// Digest is the release image's digest (its multi-arch index's), sha256:<hex>; empty when the file pins none.
	Digest string
}

// String is the pin as images.yaml's tag writes it.
func (p Pin) String() string {
	if p.Digest == "" {
		return p.Version
	}
	return p.Version + "@" + p.Digest
}

// digestPattern is an OCI digest of the one algorithm registries and containerd resolve by default.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckDigest returns an error unless digest is sha256:<64 lowercase hex digits>.
func CheckDigest(digest string) error {
	if !digestPattern.MatchString(digest) {
		return fmt.Errorf("digest %q is not sha256:<64 lowercase hex digits>", digest)
	}
	return nil
}

// parsePin reads the pin of one of our images: a release tag, optionally @ its digest.
func parsePin(img *imagevectorutils.ImageSource) (Pin, error) {
	if img.Tag == nil {
		return Pin{}, fmt.Errorf("imagevector/images.yaml: image %q has no tag; pin the last release (tag: vX.Y.Z, or vX.Y.Z@sha256:... as hack/release.sh writes it)", img.Name)
	}
	version, digest, _ := strings.Cut(*img.Tag, "@")
	if !IsRelease(version) {
		return Pin{}, fmt.Errorf("imagevector/images.yaml: image %q: tag %q is not a release vX.Y.Z; pin the last released tag", img.Name, *img.Tag)
	}
	if strings.Contains(*img.Tag, "@") {
		if err := CheckDigest(digest); err != nil {
			return Pin{}, fmt.Errorf("imagevector/images.yaml: image %q: %w; hack/release.sh writes the release's digest there", img.Name, err)
		}
	}
	return Pin{Version: version, Digest: digest}, nil
}

// ImagesYAML returns the embedded images.yaml, for tools that pin it (PinDigests) and tests.
func ImagesYAML() []byte { return bytes.Clone(imagesYAML) }

// PinDigests returns images.yaml (data) with every image of ours pinned to version, and those named in digests to
// version@digest: the release step's edit, which keeps the file's comments and order. It refuses an image the file does not list with a
// repository and tag, a digest that is not sha256:<hex>, and a version that is not a release; the result is read
// back (Parse) and must render exactly the pins.
func PinDigests(data []byte, version string, digests map[string]string) ([]byte, error) {
	if !IsRelease(version) {
		return nil, fmt.Errorf("version %q is not a release vX.Y.Z: only a release is pinned by digest", version)
	}
	lines := strings.SplitAfter(string(data), "\n")
	entry := "" // the image whose list entry the current line belongs to
	pinned := map[string]bool{}
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(trimmed, "- name:"); ok {
			entry = strings.Trim(strings.TrimSpace(name), `"'`)
			continue
		}
		if !isOurs(entry) || !strings.HasPrefix(trimmed, "tag:") {
			continue
		}
		digest, ok := digests[entry]
		if ok {
			if err := CheckDigest(digest); err != nil {
				return nil, fmt.Errorf("image %q: %w", entry, err)
			}
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		lines[i] = indent + "tag: " + Pin{Version: version, Digest: digest}.String() + "\n"
		pinned[entry] = true
	}
	for name := range digests {
		if !pinned[name] {
			return nil, fmt.Errorf("imagevector/images.yaml lists no image %q with a tag to pin", name)
		}
	}
	out := []byte(strings.Join(lines, ""))
	vector, err := Parse(out, "v0.0.0-dev")
	if err != nil {
		return nil, fmt.Errorf("images.yaml after pinning: %w", err)
	}
	for name, digest := range digests {
		img, err := vector.FindImage(name)
		if err != nil {
			return nil, fmt.Errorf("images.yaml after pinning: %w", err)
		}
		if want := *img.Repository + ":" + version + "@" + digest; img.String() != want {
			return nil, fmt.Errorf("images.yaml after pinning renders %s for %s, want %s", img.String(), name, want)
		}
	}
	return out, nil
}

// ImageDigestAnnotation is the Chart.yaml annotation with the digest of the chart's own release image (the
// extension chart's controller, the admission runtime chart's webhook server): the charts render
// repository:appVersion@digest while image.tag is empty.
const ImageDigestAnnotation = "runtime-gvisor.gardener.cloud/image-digest"

// PinChartDigest returns a chart's Chart.yaml (data) with ImageDigestAnnotation set to digest: the release step's
// edit of the line the chart carries for it (empty until a release), keeping the rest of the file.
func PinChartDigest(data []byte, digest string) ([]byte, error) {
	if err := CheckDigest(digest); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	found := false
	for i, line := range lines {
		key, _, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || key != ImageDigestAnnotation {
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		if indent == "" {
			return nil, fmt.Errorf("the chart metadata has %s at the top level; move it under annotations", ImageDigestAnnotation)
		}
		lines[i] = indent + ImageDigestAnnotation + ": " + digest + "\n"
		found = true
	}
	if !found {
		return nil, fmt.Errorf("the chart metadata has no annotation %s to pin; add it under annotations (empty), as the charts of this repository have it", ImageDigestAnnotation)
	}
	return []byte(strings.Join(lines, "")), nil
}
