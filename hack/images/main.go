// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command images builds and pushes the extension's images from their one definition (package pkg/images), without
// Docker. Run it from the repository's root, as the Makefile does:
//
//	go run ./hack/images build [-version V] [-archs "amd64 arm64"] [-registry R] [-tag T] [-base synthetic|pinned] [-out bin/images]
//	go run ./hack/images pin   -version vX.Y.Z [-archs "amd64 arm64"]
//	go run ./hack/images push  -version vX.Y.Z [-registry R] [-archs "amd64 arm64"]
//	go run ./hack/images digest REF
//
// build (`make images`) writes one archive per image and architecture, <out>/<image>-linux-<arch>.tar, that
// `ctr -n k8s.io images import` (and `docker load`) reads, with the image named as a build of VERSION renders it
// (imagevector: a -dev version renders the last released tag pinned in imagevector/images.yaml, so the charts of
// this tree reference these images as they are; -registry and -tag name them otherwise), and
// <out>/images_overwrite.yaml, the image vector overwrite that points the extension at exactly those references.
// The base is the synthetic one unless -base pinned.
//
// push (`make push-images`) is the release's: a release VERSION, a clean tree, the Go toolchain GO_VERSION pins,
// the distroless bases pinned by digest in pkg/images/bases.yaml; it pushes each image as a multi-arch index to
// <registry>/<image>:<version>, by default images.yaml's repository (credentials: the Docker config,
// ~/.docker/config.json).
//
// pin (hack/release.sh) builds the release's images exactly as push will and pins their digests into the tree:
// imagevector/images.yaml and the installation chart's default (the installation and admission images, which the
// controller image embeds, so they are built first), the admission runtime chart's and the extension chart's
// Chart.yaml (annotation runtime-gvisor.gardener.cloud/image-digest). push refuses to push images whose digests
// are not the pinned ones, so what the release's charts and controller name by digest is what the registry has.
//
// digest prints the digest of REF's manifest (its multi-arch index) in the registry: hack/pin-base-images.sh pins
// the bases with it.
//
// Every build is deterministic (SOURCE_DATE_EPOCH sets the images' times, default Unix 0). The gVisor release of
// each architecture is built by hack/tools/gvisor-release.sh into <out>/gvisor/ and reused, or given with
// -gvisor-dir ARCH=DIR; it must match imagevector/gvisor-sums.yaml, the sums the controller passes to the installers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: images build|pin|push|digest [flags] (see hack/images/main.go)`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", usage)
	}
	switch args[0] {
	case "build":
		return runBuild(ctx, args[1:])
	case "push":
		return runPush(ctx, args[1:])
	case "pin":
		return runPin(ctx, args[1:])
	case "digest":
		return runDigest(ctx, args[1:])
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}
