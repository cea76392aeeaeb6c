#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# The release step of the version rule (imagevector/README.md): pins RELEASE as the last released version
# everywhere a development build reads it, and moves VERSION to the next development version.
#
#   hack/release.sh v0.2.0 v0.3.0-dev
#
# Bumps imagevector/images.yaml (our images' tags, and digests), the charts' version/appVersion (extension, internal, admission), the installation
# chart's default image (values.yaml and its README) and VERSION; then regenerates the snapshots and
# example/controller-registration.yaml.
# Review `git diff`, commit, tag RELEASE, and push the release's images from that clean commit with
# `make push-images VERSION=RELEASE` (pkg/images: both architectures, on the pinned bases, with GO_VERSION's Go).
set -euo pipefail
cd "$(dirname "$0")/.."

release=${1:-}; next=${2:-}
[[ $release =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "usage: $0 vX.Y.Z vA.B.C-dev (first argument: a release version like v0.2.0)" >&2; exit 2; }
[[ $next =~ ^v[0-9]+\.[0-9]+\.[0-9]+-dev$ ]] || { echo "usage: $0 vX.Y.Z vA.B.C-dev (second argument: the next development version like v0.3.0-dev)" >&2; exit 2; }
[ -z "$(git status --porcelain)" ] || { echo "the work tree has changes: commit or stash them first" >&2; exit 1; }

chart_version=${release#v}
# Our images: the tag line right after their repository line.
sed -i -E "/repository: ghcr.io\/runtime-gvisor\//{n;s/^( *tag: ).*/\1$release/}" imagevector/images.yaml
for chart in charts/gardener-extension-runtime-gvisor charts/internal/gvisor charts/internal/gvisor-installation \
    charts/gardener-extension-admission-runtime-gvisor/charts/runtime charts/gardener-extension-admission-runtime-gvisor/charts/application; do
  sed -i -E "s/^version: .*/version: $chart_version/; s/^appVersion: .*/appVersion: $release/" "$chart/Chart.yaml"
done
sed -i -E "s#^(image: ghcr.io/runtime-gvisor/runtime-gvisor-installation:).*#\1$release#" charts/internal/gvisor-installation/values.yaml
# The chart README's values table shows that default too.
sed -i -E "/^\| \`image\` \|/s#(ghcr.io/runtime-gvisor/runtime-gvisor-installation:)[^\`]*#\1$release#" charts/internal/gvisor-installation/README.md
echo "$next" > VERSION

# The checksum anchor of the gVisor release (imagevector/gvisor-sums.yaml), from this toolchain's build of both
# architectures: the controller of this release refuses installation images whose gVisor differs.
hack/gvisor-sums.sh
# The release images' base images (pkg/images/bases.yaml), pinned to the digests their tags name now
# (PIN_BASE_IMAGES=0 skips it).
[ "${PIN_BASE_IMAGES:-1}" = 0 ] || hack/pin-base-images.sh
# The release's images by digest: builds them as `make push-images` will (both architectures, the pinned bases,
# GO_VERSION's Go) and pins their digests into images.yaml, the installation chart's default and the extension and
# admission charts' Chart.yaml; push-images refuses images that differ from these pins.
go run ./hack/images pin -version "$release"
make snapshots generate
echo "pinned $release; VERSION is $next. Review git diff, run make test, commit and tag $release." >&2
