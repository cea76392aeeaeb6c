#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# gvisor-release.sh GOARCH OUTDIR [rebuild]: builds the gVisor release pinned in GVISOR_VERSION for linux/GOARCH into OUTDIR,
# as the installation image carries it (--source): static runsc (stamped with the version, else it reports
# VERSION_MISSING; a cgo runsc cannot start sandboxes), containerd-shim-runsc-v1 (gvisor.dev/gvisor/shim renamed)
# and SHA512SUMS. Cross-compiles on the build machine (CGO_ENABLED=0, no emulation). The image build (hack/images,
# `make images` and `make push-images`) runs this for each architecture and hack/tools/gvisor.sh for the test
# machine's architecture, so tests use the build the image ships.
#
# With "rebuild" it builds the same source a second way, as a test's second release: the version stamped
# "<version>-rebuild" and the binaries not stripped (no -s -w), so every file differs from the release's (upgrade
# and rollback tests need two releases that really differ, and the Go module proxy serves one gVisor version).
# Only linking differs, so with the release built it takes seconds, not minutes.
#
# Guard against the field bug "pods not ready on amd64" (an image variant carrying another architecture's gVisor):
# every binary's Go build info must say GOARCH=GOARCH and CGO_ENABLED=0, or the build fails here, not on nodes.
set -euo pipefail
arch=${1:?usage: gvisor-release.sh GOARCH OUTDIR}
out=${2:?usage: gvisor-release.sh GOARCH OUTDIR}
variant=${3:-}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${GVISOR_VERSION:-$(cat "${GVISOR_VERSION_FILE:-$here/../../GVISOR_VERSION}")}"
# An exact module version (a tag or pseudo-version), never a query like latest or a branch: the Go module checksum
# database vouches for exactly this version's content, and imagevector/gvisor-sums.yaml records its build.
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+incompatible)?$ ]] ||
  { echo "gvisor-release.sh: GVISOR_VERSION '$version' is not an exact module version (vX.Y.Z or a pseudo-version)" >&2; exit 1; }

case "$variant" in
  "") ldflags="-s -w -X gvisor.dev/gvisor/runsc/version.version=$version" ;;
  rebuild) ldflags="-X gvisor.dev/gvisor/runsc/version.version=$version-rebuild" ;;
  *) echo "gvisor-release.sh: unknown variant '$variant' (want rebuild)" >&2; exit 1 ;;
esac

# go install cannot put cross-compiled binaries into GOBIN; a private GOPATH (sharing the module cache) gets them
# in bin/ (native) or bin/linux_<arch>/ (cross).
gopath="$(mktemp -d)"
trap 'chmod -R u+w "$gopath" 2>/dev/null; rm -rf "$gopath"' EXIT
GOPATH="$gopath" GOMODCACHE="$(go env GOMODCACHE)" GOBIN= CGO_ENABLED=0 GOOS=linux GOARCH="$arch" \
  go install -trimpath -ldflags "$ldflags" \
  "gvisor.dev/gvisor/runsc@$version" "gvisor.dev/gvisor/shim@$version" >&2
bin="$gopath/bin"
[ -d "$bin/linux_$arch" ] && bin="$bin/linux_$arch"

for f in runsc shim; do
  info="$(go version -m "$bin/$f")"
  grep -q "GOARCH=$arch\$" <<<"$info" || { echo "gvisor-release.sh: $f is not built for $arch:" >&2; echo "$info" >&2; exit 1; }
  grep -q "CGO_ENABLED=0\$" <<<"$info" || { echo "gvisor-release.sh: $f is not a static (CGO_ENABLED=0) build" >&2; exit 1; }
done
mkdir -p "$out"
install -m 0755 "$bin/runsc" "$out/runsc"
install -m 0755 "$bin/shim" "$out/containerd-shim-runsc-v1"
(cd "$out" && sha512sum runsc containerd-shim-runsc-v1 > SHA512SUMS)
echo "$out"
