#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Pins the release images' base images to digests (issue 12, item 5), the release step's part of "build from exactly
# these images":
#
#   hack/pin-base-images.sh            # rewrites each ref of pkg/images/bases.yaml to <ref>@sha256:<digest>
#
# Each `<kind>: <ref>` line of pkg/images/bases.yaml is resolved to the digest of its multi-arch index in the
# registry by $DIGEST_CMD <ref> (default: `go run ./hack/images digest`, go-containerregistry with the Docker
# config's credentials; no Docker needed), and written back as <ref-without-digest>@<digest>. Already pinned refs
# are re-resolved from their tag, so running it again moves the pins to what the tags name now. Review the diff
# (`git diff pkg/images/bases.yaml`), commit it with the release. hack/release.sh runs it (PIN_BASE_IMAGES=0 skips
# it); `make push-images` refuses bases without a digest.
set -euo pipefail
cd "$(dirname "$0")/.."
bases="${BASES_FILE:-pkg/images/bases.yaml}"

resolve() {
  if [ -n "${DIGEST_CMD:-}" ]; then
    $DIGEST_CMD "$1"
  else
    go run ./hack/images digest "$1"
  fi
}

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
while IFS= read -r line; do
  if [[ $line =~ ^([A-Za-z]+):\ (.+)$ ]]; then
    kind="${BASH_REMATCH[1]}"
    ref="${BASH_REMATCH[2]%@*}"
    digest="$(resolve "$ref")"
    [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]] || { echo "pin-base-images.sh: $ref: not a digest: '$digest'" >&2; exit 1; }
    echo "$kind: $ref@$digest"
    echo "pinned $kind: $ref@$digest" >&2
  else
    printf '%s\n' "$line"
  fi
done <"$bases" >"$tmp"
cat "$tmp" >"$bases"
