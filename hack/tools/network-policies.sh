#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs kube-network-policies (sigs.k8s.io/kube-network-policies, SIG Network's NetworkPolicy implementation on
# nftables and nfqueue) from the Go module proxy into $TOOLS_DIR/kube-network-policies-<version>/ and prints the
# binary's path. The VM node (test/vmnode) runs it as its NetworkPolicy enforcer, so that the installation chart's
# NetworkPolicy is judged by a real implementation on a real kernel (the tests' own host kernel has no nfqueue).
source "$(dirname "$0")/lib.sh"

NETWORK_POLICIES_VERSION="v0.8.0"
dir="$TOOLS_DIR/kube-network-policies-$NETWORK_POLICIES_VERSION"
if ! { [ -x "$dir/kube-network-policies" ] && grep -q "$NETWORK_POLICIES_VERSION" <<<"$(go version -m "$dir/kube-network-policies" 2>/dev/null)"; }; then
  log "installing kube-network-policies (sigs.k8s.io/kube-network-policies $NETWORK_POLICIES_VERSION; cold: about two minutes on 2 cores)"
  mkdir -p "$dir"
  # The module's main package is its cmd directory: go install names the binary "cmd".
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kube-network-policies/cmd@$NETWORK_POLICIES_VERSION"
  mv "$dir/cmd" "$dir/kube-network-policies"
fi
echo "$dir/kube-network-policies"
