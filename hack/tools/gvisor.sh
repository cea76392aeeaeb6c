#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# gvisor.sh [rebuild]: builds the gVisor release pinned in GVISOR_VERSION (repo root) for this machine's architecture into
# $TOOLS_DIR/gvisor-<version>/ and prints that folder: static runsc, containerd-shim-runsc-v1 and SHA512SUMS, a
# release exactly as the installation image carries it (--source). The build is hack/tools/gvisor-release.sh, the
# same script the image build (hack/images) runs for each architecture, so tests run the binaries the image ships
# (test/images puts this very folder into the installation image the tests build).
source "$(dirname "$0")/lib.sh"

GVISOR_VERSION="${GVISOR_VERSION:-$(cat "$REPO_ROOT/GVISOR_VERSION")}"
variant="${1:-}"
dir="$TOOLS_DIR/gvisor-$GVISOR_VERSION${variant:+-$variant}"
stamped="$GVISOR_VERSION${variant:+-$variant}"

if ! { [ -x "$dir/runsc" ] && [ -x "$dir/containerd-shim-runsc-v1" ] &&
  grep -qF "runsc version $stamped" <<<"$("$dir/runsc" --version 2>/dev/null)" &&
  (cd "$dir" && sha512sum --status -c SHA512SUMS 2>/dev/null); }; then
  log "building gVisor $stamped for $(go env GOARCH) (cold: several minutes on 2 cores)"
  GVISOR_VERSION="$GVISOR_VERSION" "$REPO_ROOT/hack/tools/gvisor-release.sh" "$(go env GOARCH)" "$dir" $variant >/dev/null
fi
echo "$dir"
