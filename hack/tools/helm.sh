#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs the helm CLI from the Go module proxy into $TOOLS_DIR/helm-<version>/ and prints the binary's path.
source "$(dirname "$0")/lib.sh"

HELM_VERSION="v3.22.0"
dir="$TOOLS_DIR/helm-$HELM_VERSION"
if ! { [ -x "$dir/helm" ] && grep -q "^$HELM_VERSION" <<<"$("$dir/helm" version --short 2>/dev/null)"; }; then
  log "installing helm $HELM_VERSION (cold: 2-4 minutes on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi
echo "$dir/helm"
