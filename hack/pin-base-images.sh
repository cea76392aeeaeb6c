#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Pins the Dockerfile's base images to digests (issue 12, item 5), the release step's part of "build from exactly
# these images":
#
#   hack/pin-base-images.sh            # rewrites the *_IMAGE ARG defaults of Dockerfile to <image>@sha256:<digest>
#
# Each `ARG <NAME>_IMAGE=<ref>` default (with ${GO_VERSION} expanded) is resolved to the digest of its multi-arch
# index in the registry by $DIGEST_CMD <ref> (default: `docker buildx imagetools inspect --format
# '{{json .Manifest.Digest}}'`), and written back as <ref-without-digest>@<digest>. Already pinned refs are
# re-resolved from their tag, so running it again moves the pins to what the tags name now. Review the diff
# (`git diff Dockerfile`), commit it with the release. hack/release.sh runs it (PIN_BASE_IMAGES=0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
dockerfile="${DOCKERFILE:-Dockerfile}"

resolve() {
  if [ -n "${DIGEST_CMD:-}" ]; then
    $DIGEST_CMD "$1"
  else
    docker buildx imagetools inspect --format '{{json .Manifest.Digest}}' "$1" | tr -d '"'
  fi
}

go_version="$(sed -nE 's/^ARG GO_VERSION=([0-9.]+)$/\1/p' "$dockerfile")"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
while IFS= read -r line; do
  if [[ $line =~ ^ARG\ ([A-Z_]+_IMAGE)=(.+)$ ]]; then
    name="${BASH_REMATCH[1]}"
    ref="${BASH_REMATCH[2]//\$\{GO_VERSION\}/$go_version}"
    ref="${ref%@*}"
    digest="$(resolve "$ref")"
    [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]] || { echo "pin-base-images.sh: $ref: not a digest: '$digest'" >&2; exit 1; }
    echo "ARG $name=$ref@$digest"
    echo "pinned $name: $ref@$digest" >&2
  else
    printf '%s\n' "$line"
  fi
done <"$dockerfile" >"$tmp"
cat "$tmp" >"$dockerfile"
