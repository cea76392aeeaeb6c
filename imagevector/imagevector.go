// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package imagevector resolves the images of this extension: the pinned list in images.yaml, stamped with the
// build's version when that is a release, then overwritten by the operator's IMAGEVECTOR_OVERWRITE file
// (Gardener's convention, applied by github.com/gardener/gardener/pkg/utils/imagevector).
//
// The rule (see README.md): a release version (vX.Y.Z) tags our images with that version; anything else
// (-dev, -dirty, +metadata, the unstamped v0.0.0-dev of `go build`/`go test`) keeps the pinned tag of the last
// release, so no build can ever render a tag that no registry has.
package imagevector

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"

	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"
)

// Names of our images in images.yaml.
const (
	ImageNameExtension    = "gardener-extension-runtime-gvisor"
	ImageNameInstallation = "runtime-gvisor-installation"
	// ImageNameAdmission is the admission webhook server in the garden (its runtime chart's default image).
	ImageNameAdmission = "gardener-extension-admission-runtime-gvisor"
)

// OverrideEnv is the environment variable naming the operator's image vector overwrite file.
const OverrideEnv = imagevectorutils.OverrideEnv

//go:embed images.yaml
var imagesYAML []byte

// ours lists the images the version stamp applies to: images.yaml may one day list third-party images, whose
// tags have nothing to do with our version.
var ours = []string{ImageNameExtension, ImageNameInstallation, ImageNameAdmission}

var releaseVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

// IsRelease reports whether version is a release version (vMAJOR.MINOR.PATCH, nothing appended), the only kind
// that our images are tagged with.
func IsRelease(version string) bool { return releaseVersion.MatchString(version) }

// ForVersion returns images.yaml with our images tagged version if it is a release, and left at their pinned
// tags otherwise. It ignores IMAGEVECTOR_OVERWRITE (see Load).
func ForVersion(version string) (imagevectorutils.ImageVector, error) {
	return Parse(imagesYAML, version)
}

// Parse is ForVersion for an images.yaml of the caller's (the embedded one, or one the release step pinned): our
// images' pins are releases, optionally with the digest of that release's image (Pin, see digest.go). A release
// build renders the pinned tag and digest when version is the pinned release, and version alone otherwise (a build
// of a release the file does not pin yet); every other build renders the pin as it stands.
func Parse(data []byte, version string) (imagevectorutils.ImageVector, error) {
	vector, _, err := imagevectorutils.Read(data)
	if err != nil {
		return nil, fmt.Errorf("reading imagevector/images.yaml: %w", err)
	}
	for _, img := range vector {
		if !isOurs(img.Name) || img.Ref != nil {
			continue
		}
		pin, err := parsePin(img)
		if err != nil {
			return nil, err
		}
		if IsRelease(version) && pin.Version != version {
			tag := version
			img.Tag = &tag
		}
	}
	// The pinned tags must themselves be releases: guard against a release step that pinned a dev tag.
	for _, img := range vector {
		if ref := img.ToImage(nil).String(); CheckReference(ref) != nil {
			return nil, fmt.Errorf("imagevector/images.yaml: image %q: %w; pin the last released tag", img.Name, CheckReference(ref))
		}
	}
	return vector, nil
}

// PinnedTag returns the tag images.yaml pins for the named image, without the digest a release pins beside it:
// the last release, which every non-release build renders (PinnedReference is the whole reference). Callers that
// must agree with the pin (tests, tooling) read it here instead of repeating it, so the release step
// (hack/release.sh) edits images.yaml and nothing else in Go.
func PinnedTag(name string) (string, error) {
	pin, err := pinOf(name)
	return pin.Version, err
}

// PinnedDigest returns the digest images.yaml pins for the named image (sha256:...), empty when it pins none.
func PinnedDigest(name string) (string, error) {
	pin, err := pinOf(name)
	return pin.Digest, err
}

// PinnedReference returns the reference every non-release build renders for the named image (repository:tag, and
// @digest when images.yaml pins one).
func PinnedReference(name string) (string, error) {
	vector, err := ForVersion("v0.0.0-dev") // never a release, so no tag is replaced
	if err != nil {
		return "", err
	}
	img, err := vector.FindImage(name)
	if err != nil {
		return "", fmt.Errorf("imagevector/images.yaml: %w", err)
	}
	return img.String(), nil
}

func pinOf(name string) (Pin, error) {
	vector, err := ForVersion("v0.0.0-dev")
	if err != nil {
		return Pin{}, err
	}
	for _, img := range vector {
		if img.Name == name {
			if img.Ref != nil || img.Tag == nil {
				return Pin{}, fmt.Errorf("imagevector/images.yaml: image %q has no tag of its own (a ref or an untagged repository); pin it with repository and tag", name)
			}
			return parsePin(img)
		}
	}
	return Pin{}, fmt.Errorf("imagevector/images.yaml: image %q not found", name)
}

// Load returns ForVersion(version) with the overwrite file named by IMAGEVECTOR_OVERWRITE applied, if set.
func Load(version string) (imagevectorutils.ImageVector, error) {
	return LoadWithOverwrite(version, os.Getenv(OverrideEnv))
}

// LoadWithOverwrite returns ForVersion(version) merged with the image vector in overwriteFile (skipped when
// empty), with Gardener's merge semantics: an entry with `tag:` replaces the tag, one with `ref:` replaces the
// whole reference (so it never gets a second tag appended).
func LoadWithOverwrite(version, overwriteFile string) (imagevectorutils.ImageVector, error) {
	vector, err := ForVersion(version)
	if err != nil {
		return nil, err
	}
	return Overwrite(vector, overwriteFile)
}

// Overwrite returns vector merged with the image vector in overwriteFile (vector itself when it is empty), with
// Gardener's merge semantics (see LoadWithOverwrite).
func Overwrite(vector imagevectorutils.ImageVector, overwriteFile string) (imagevectorutils.ImageVector, error) {
	if overwriteFile == "" {
		return vector, nil
	}
	overwrite, _, err := imagevectorutils.ReadFile(overwriteFile)
	if err != nil {
		return nil, fmt.Errorf("reading image vector overwrite %s (set by %s or --image-vector-overwrite): %w", overwriteFile, OverrideEnv, err)
	}
	return imagevectorutils.MergeImageVectors(vector, overwrite), nil
}

// forbidden are the markers of versions that no registry has: development and dirty builds, git-describe
// versions of untagged commits, and unexpanded git archive placeholders.
var forbidden = []string{"-dev", "-dirty", "master+", "$Format"}

// CheckReference returns an error if the image reference carries a development version marker.
func CheckReference(ref string) error {
	for _, f := range forbidden {
		if strings.Contains(ref, f) {
			return fmt.Errorf("image reference %q contains %q, a version no registry has", ref, f)
		}
	}
	return nil
}

func isOurs(name string) bool {
	for _, n := range ours {
		if n == name {
			return true
		}
	}
	return false
}
