// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
)

// runPush builds every image for every architecture on the pinned bases, with the pinned toolchain, checks that
// each is the image the release pinned by digest (hack/release.sh, runPin), and pushes each as a multi-arch index to
// <registry>/<image>:<version>.
func runPush(ctx context.Context, args []string) error {
	c, err := parseRelease("push", args)
	if err != nil {
		return err
	}
	if err := checkCleanTree(); err != nil {
		return err
	}
	pinned, err := readPins(".", c.version)
	if err != nil {
		return err
	}
	refs, err := references(c.version, c.registry, "")
	if err != nil {
		return err
	}
	perImage, err := c.buildRelease(ctx, images.Definitions())
	if err != nil {
		return err
	}
	built := map[string]string{}
	for n, perArch := range perImage {
		if built[n], err = indexDigest(perArch); err != nil {
			return err
		}
	}
	if err := verifyPins(built, pinned); err != nil {
		return err
	}
	for _, d := range images.Definitions() {
		digest, err := images.Push(ctx, refs[d.Name], perImage[d.Name], remote.WithAuthFromKeychain(authn.DefaultKeychain))
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "%s@%s\n", refs[d.Name], digest)
	}
	return nil
}

// runPin is the release step's (hack/release.sh): it builds the release's images as push will, and pins their
// digests into the tree (pinLocations): first the images the controller deploys, then the controller image, which
// embeds those pins.
func runPin(ctx context.Context, args []string) error {
	c, err := parseRelease("pin", args)
	if err != nil {
		return err
	}
	for _, step := range [][]string{leafImages(), {imagevector.ImageNameExtension}} {
		var defs []images.Image
		for _, n := range step {
			d, ok := images.Definition(n)
			if !ok {
				return fmt.Errorf("no image definition %q", n)
			}
			defs = append(defs, d)
		}
		perImage, err := c.buildRelease(ctx, defs)
		if err != nil {
			return err
		}
		digests := map[string]string{}
		for _, n := range step {
			if digests[n], err = indexDigest(perImage[n]); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "images: pinned %s %s@%s\n", n, c.version, digests[n])
		}
		if err := writePins(".", c.version, digests); err != nil {
			return err
		}
	}
	return nil
}

// parseRelease parses the flags of a release command (pin, push) and refuses a version that is not a release: only
// releases are pinned and pushed.
func parseRelease(command string, args []string) (common, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if !imagevector.IsRelease(c.version) {
		return c, fmt.Errorf("-version %q is not a release (vX.Y.Z): only releases are pinned and pushed, every other build renders the last released tag", c.version)
	}
	return c, nil
}

// buildRelease builds defs for every architecture as the release does: the pinned bases, GO_VERSION's toolchain, no
// revision label (the pins are written before the release commit exists, and the images must be the same at the
// push: the version label names the release). It returns the images by name and architecture.
func (c *common) buildRelease(ctx context.Context, defs []images.Image) (map[string]map[string]v1.Image, error) {
	b, err := c.builder()
	if err != nil {
		return nil, err
	}
	b.Revision = ""
	if b.GoVersion, err = images.ReadGoVersion("."); err != nil {
		return nil, err
	}
	if b.Base, err = pinnedBase(); err != nil {
		return nil, err
	}
	perImage := map[string]map[string]v1.Image{}
	for _, arch := range c.archList() {
		built, err := b.Build(ctx, arch, defs)
		if err != nil {
			return nil, err
		}
		for n, img := range built {
			if perImage[n] == nil {
				perImage[n] = map[string]v1.Image{}
			}
			perImage[n][arch] = img
		}
	}
	return perImage, nil
}

// indexDigest is the digest of the multi-arch index Push writes for one image's builds.
func indexDigest(perArch map[string]v1.Image) (string, error) {
	idx, err := images.Index(perArch)
	if err != nil {
		return "", err
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

// checkCleanTree refuses to push from a tree with changes: the images would not be the tagged commit's (parseRelease
// refuses a version that is not a release).
func checkCleanTree() error {
	if status, err := exec.Command("git", "status", "--porcelain").Output(); err != nil || len(status) > 0 {
		return fmt.Errorf("the work tree has changes or is no git checkout (%v): push a release from its clean, tagged commit", err)
	}
	return nil
}

// runDigest prints the digest of REF's manifest in the registry (for a multi-arch image, its index's).
func runDigest(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: images digest REF")
	}
	ref, err := name.ParseReference(args[0], name.StrictValidation)
	if err != nil {
		return err
	}
	desc, err := remote.Head(ref, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return fmt.Errorf("reading %s: %w", ref, err)
	}
	fmt.Fprintln(os.Stdout, desc.Digest)
	return nil
}
