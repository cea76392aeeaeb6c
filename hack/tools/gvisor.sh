#!/usr/bin/env bash
# Builds the gVisor release pinned in GVISOR_VERSION (repo root) from the Go module proxy into
# $TOOLS_DIR/gvisor-<version>/ and prints that folder: static runsc (stamped with the version, else it reports
# VERSION_MISSING) and containerd-shim-runsc-v1 (gvisor.dev/gvisor/shim renamed). CGO_ENABLED=0 is required:
# a cgo build of runsc cannot start a sandbox ("fork/exec /proc/self/exe: no such file or directory").
# With SHA512SUMS beside them the folder is a release as the installation image carries it (--source).
source "$(dirname "$0")/lib.sh"

GVISOR_VERSION="${GVISOR_VERSION:-$(cat "$REPO_ROOT/GVISOR_VERSION")}"
dir="$TOOLS_DIR/gvisor-$GVISOR_VERSION"
ldflags="-s -w -X gvisor.dev/gvisor/runsc/version.version=$GVISOR_VERSION"

if ! { [ -x "$dir/runsc" ] && "$dir/runsc" --version 2>/dev/null | grep -qF "runsc version $GVISOR_VERSION"; }; then
  log "building runsc $GVISOR_VERSION (cold: several minutes on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir/.bin" CGO_ENABLED=0 go install -trimpath -ldflags "$ldflags" "gvisor.dev/gvisor/runsc@$GVISOR_VERSION" >&2
  mv "$dir/.bin/runsc" "$dir/runsc"
  rm -f "$dir/containerd-shim-runsc-v1" # rebuild the shim with the same release
fi
if ! [ -x "$dir/containerd-shim-runsc-v1" ]; then
  log "building containerd-shim-runsc-v1 $GVISOR_VERSION"
  GOBIN="$dir/.bin" CGO_ENABLED=0 go install -trimpath -ldflags "$ldflags" "gvisor.dev/gvisor/shim@$GVISOR_VERSION" >&2
  mv "$dir/.bin/shim" "$dir/containerd-shim-runsc-v1"
fi
rmdir "$dir/.bin" 2>/dev/null || true
# The folder doubles as a release as the installation image carries it (gvisor-installer --source).
(cd "$dir" && { sha512sum --status -c SHA512SUMS 2>/dev/null || sha512sum runsc containerd-shim-runsc-v1 > SHA512SUMS; })
echo "$dir"
