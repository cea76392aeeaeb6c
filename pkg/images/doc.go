// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package images is the one definition of this extension's container images and the code that builds them, without
// Docker: the release pushes what it builds (hack/images, `make push-images`), and the tests run what it builds
// (test/images, `make images`), so there is no second definition (a Dockerfile) that could drift from the images the
// tests prove.
//
// Definitions lists the three images: the extension controller, the admission webhook server and the installation
// image (installer, idle program, gVisor release). A Builder builds them for one architecture:
//
//   - our binaries are cross-compiled from ./cmd/... with CGO_ENABLED=0, -trimpath and the Makefile's version
//     ldflags, and each is refused unless its Go build info says linux, the target GOARCH and CGO_ENABLED=0 (the
//     field bug "pods not ready on amd64" was an image variant carrying another architecture's binaries);
//   - the installation image's gVisor release comes from a directory built by hack/tools/gvisor-release.sh (the
//     build tests use too), checked against its own SHA512SUMS and, for releases, against the checksum anchor the
//     controller embeds (imagevector/gvisor-sums.yaml);
//   - the base is either distroless pinned by digest (bases.yaml, for releases) or Synthetic, a layer with what our
//     static binaries need from distroless, for tests and local builds without a registry. The image config is set
//     in full by the definition, so both bases give the same config and differ only in their base layers.
//
// Builds are deterministic: every timestamp is the Builder's Epoch (Unix 0 by default), tar entries are sorted with
// fixed owners and modes, and gzip has a fixed level; the same source, toolchain, version and base give the same
// image digest. WriteArchive writes an image as one tarball that is both an OCI image layout and a docker-archive,
// named with its reference, which `ctr images import` and `docker load` both read; Push pushes a multi-arch index.
package images
