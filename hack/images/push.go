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

// runPush builds every image for every architecture on the pinned bases, with the pinned toolchain, and pushes each
// as a multi-arch index to <registry>/<image>:<version>.
func runPush(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	var c common
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := c.builder()
	if err != nil {
		return err
	}
	if err := checkRelease(c); err != nil {
		return err
	}
	if b.GoVersion, err = images.ReadGoVersion("."); err != nil {
		return err
	}
	if b.Base, err = pinnedBase(); err != nil {
		return err
	}
	refs, err := references(c.version, c.registry, "")
	if err != nil {
		return err
	}
	perImage := map[string]map[string]v1.Image{}
	for _, arch := range c.archList() {
		built, err := b.Build(ctx, arch, images.Definitions())
		if err != nil {
			return err
		}
		for n, img := range built {
			if perImage[n] == nil {
				perImage[n] = map[string]v1.Image{}
			}
			perImage[n][arch] = img
		}
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

// checkRelease refuses what must not be pushed: a version that is not a release (no chart or controller of any
// version renders it), a tree with changes (the images would not be the tagged commit's).
func checkRelease(c common) error {
	if !imagevector.IsRelease(c.version) {
		return fmt.Errorf("version %q is not a release (vX.Y.Z): only releases are pushed, every other build renders the last released tag", c.version)
	}
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
