#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Builds the field's extension controller (github.com/gardener/gardener-extension-runtime-gvisor, the public
# upstream) from its source, outside this clone, into $TOOLS_DIR/field-extension-<commit>/, and prints the
# binary's path. Only the seed-scale benchmark (make bench-seed, test/seedbench) uses it; nothing of it is vendored
# or copied into this repository, and `make test` does not depend on it.
#
# The Go module proxy does not serve the upstream's commits as a module, so the source comes from git:
#   FIELD_EXTENSION_GIT_DIR=<a clone or bare mirror of the upstream> hack/tools/field-extension.sh
#   (e.g. git clone --bare https://github.com/gardener/gardener-extension-runtime-gvisor)
# Its dependencies come from the Go module proxy (GOFLAGS=-mod=mod; the upstream's vendor folder is not used).
# At the pinned commit the upstream's go.mod (Gardener v1.149.3, k8s.io v0.36.3, controller-runtime v0.24.1) is
# built unchanged. Build flags are ours (make build): CGO_ENABLED=0, -trimpath, -ldflags "-s -w".
source "$(dirname "$0")/lib.sh"

FIELD_EXTENSION_COMMIT="${FIELD_EXTENSION_COMMIT:-0f375df3b2b48b9ad7009d6e73a28cedbf2f89d9}" # "Update gardener/gardener to v1.149.3 (#456)"
dir="$TOOLS_DIR/field-extension-$FIELD_EXTENSION_COMMIT"
bin="$dir/gardener-extension-runtime-gvisor"
if ! { [ -x "$bin" ] && [ "$(cat "$dir/COMMIT" 2>/dev/null)" = "$FIELD_EXTENSION_COMMIT" ]; }; then
  if [ -z "${FIELD_EXTENSION_GIT_DIR:-}" ]; then
    echo "field-extension.sh: FIELD_EXTENSION_GIT_DIR is empty: set it to a clone (or bare mirror) of github.com/gardener/gardener-extension-runtime-gvisor that has commit $FIELD_EXTENSION_COMMIT" >&2
    exit 1
  fi
  log "building the field's extension at $FIELD_EXTENSION_COMMIT from $FIELD_EXTENSION_GIT_DIR"
  rm -rf "$dir/src" "$dir/COMMIT"
  mkdir -p "$dir/src"
  git -C "$FIELD_EXTENSION_GIT_DIR" archive "$FIELD_EXTENSION_COMMIT" | tar -x -C "$dir/src"
  rm -rf "$dir/src/vendor"
  (cd "$dir/src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/gardener-extension-runtime-gvisor)
  echo "$FIELD_EXTENSION_COMMIT" >"$dir/COMMIT"
fi
echo "$bin"
