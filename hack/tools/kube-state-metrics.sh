#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs kube-state-metrics (k8s.io/kube-state-metrics/v2 from the Go module proxy) at the release Gardener runs for
# every shoot (the tag of kube-state-metrics in the imagevector of the Gardener module go.mod pins) into
# $TOOLS_DIR/kube-state-metrics-<version>/ and prints the binary's path. test/e2e runs it as the shoot's, with the
# arguments Gardener's own component gives it, so that the installation alerts are judged on its real series.
source "$(dirname "$0")/lib.sh"

gardener_dir="$(cd "$REPO_ROOT" && go list -m -f '{{.Dir}}' github.com/gardener/gardener)"
version="$(awk '/^  - name: kube-state-metrics$/ { found = 1; next } found && $1 == "tag:" { print $2; exit }' \
  "$gardener_dir/imagevector/containers.yaml")"
if [ -z "$version" ]; then
  log "no kube-state-metrics tag in $gardener_dir/imagevector/containers.yaml"
  exit 1
fi
dir="$TOOLS_DIR/kube-state-metrics-$version"
if ! { [ -x "$dir/kube-state-metrics" ] && grep -q "kube-state-metrics/v2[[:space:]]*$version" <<<"$(go version -m "$dir/kube-state-metrics" 2>/dev/null)"; }; then
  log "installing kube-state-metrics (k8s.io/kube-state-metrics/v2 $version, Gardener's; cold: a few minutes on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "k8s.io/kube-state-metrics/v2@$version"
fi
echo "$dir/kube-state-metrics"
