// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// Reference returns the reference of the named image as a build of version renders it (imagevector.ForVersion:
// images.yaml's repository; the version as tag for a release, the last released tag pinned there otherwise), which
// registry and tag replace when set: registry the repository's path up to the image's name (for example
// registry.example.com/gvisor), tag the tag; a digest pinned beside the tag is not part of it. The default is what the charts and the controller of that version pull.
func Reference(imageName, version, registry, tag string) (name.Tag, error) {
	vector, err := imagevector.ForVersion(version)
	if err != nil {
		return name.Tag{}, err
	}
	img, err := vector.FindImage(imageName)
	if err != nil {
		return name.Tag{}, fmt.Errorf("imagevector/images.yaml: %w", err)
	}
	if img.Tag == nil || img.Repository == nil || img.Ref != nil {
		return name.Tag{}, fmt.Errorf("imagevector/images.yaml: image %q has no repository and tag", imageName)
	}
	// An image is named by its tag; the digest a release pins beside it (imagevector.Pin) is what the image
	// built from the release's tree has, never a part of its name.
	repository, t := *img.Repository, strings.SplitN(*img.Tag, "@", 2)[0]
	if registry != "" {
		repository = strings.TrimSuffix(registry, "/") + "/" + path.Base(repository)
	}
	if tag != "" {
		t = tag
	}
	ref, err := name.NewTag(repository+":"+t, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("image %s: %w", imageName, err)
	}
	return ref, nil
}

// GoVersionFile is the file with the exact Go toolchain version the release is built with, in the repository.
const GoVersionFile = "GO_VERSION"

var goVersionPattern = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// ReadGoVersion returns the toolchain GO_VERSION in sourceDir pins, as `go env GOVERSION` prints it (go1.x.y). It is
// exact (patch level): the gVisor release must be byte for byte the build imagevector/gvisor-sums.yaml records, and
// Go builds are reproducible only for the same toolchain.
func ReadGoVersion(sourceDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(sourceDir, GoVersionFile))
	if err != nil {
		return "", fmt.Errorf("reading the pinned Go toolchain: %w", err)
	}
	v := strings.TrimSpace(string(data))
	if !goVersionPattern.MatchString(v) {
		return "", fmt.Errorf("%s is %q, want an exact version like 1.26.8", GoVersionFile, v)
	}
	return "go" + v, nil
}
