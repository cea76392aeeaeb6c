#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs crictl (sigs.k8s.io/cri-tools) from the Go module proxy into $TOOLS_DIR/crictl-<version>/ and prints the
# binary's path. The VM node (test/vmnode) carries it: its tests ask the node's containerd over CRI with the tool an
# operator would use on a node (crictl runp, statsp: the kubelet's ListPodSandboxStats).
source "$(dirname "$0")/lib.sh"

CRICTL_VERSION="v1.34.0"
dir="$TOOLS_DIR/crictl-$CRICTL_VERSION"
if ! { [ -x "$dir/crictl" ] && grep -q "$CRICTL_VERSION" <<<"$(go version -m "$dir/crictl" 2>/dev/null)"; }; then
  log "installing crictl (sigs.k8s.io/cri-tools $CRICTL_VERSION; cold: under a minute)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION"
fi
echo "$dir/crictl"
