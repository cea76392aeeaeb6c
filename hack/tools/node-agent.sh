#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Builds gardener-node-agent (github.com/gardener/gardener/cmd/gardener-node-agent, the Gardener release go.mod pins,
# with this module's dependency versions) into $TOOLS_DIR/gardener-node-agent-<version>/ and prints the binary's
# path. The VM node (test/vmnode) runs it as Gardener's nodes do, as the systemd unit Gardener writes: the
# OperatingSystemConfig delivery mode on a real node.
source "$(dirname "$0")/lib.sh"

version="$(cd "$REPO_ROOT" && go list -m -f '{{.Version}}' github.com/gardener/gardener)"
dir="$TOOLS_DIR/gardener-node-agent-$version"
if ! { [ -x "$dir/gardener-node-agent" ] && grep -q "github.com/gardener/gardener[[:space:]]*$version" <<<"$(go version -m "$dir/gardener-node-agent" 2>/dev/null)"; }; then
  log "building gardener-node-agent (github.com/gardener/gardener $version; cold: a few minutes on 2 cores)"
  mkdir -p "$dir"
  (cd "$REPO_ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/gardener-node-agent.tmp" github.com/gardener/gardener/cmd/gardener-node-agent)
  mv "$dir/gardener-node-agent.tmp" "$dir/gardener-node-agent"
fi
echo "$dir/gardener-node-agent"
