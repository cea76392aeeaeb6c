#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs Prometheus' promtool from the Go module proxy into $TOOLS_DIR/promtool-<version>/ and prints the binary's
# path. The monitoring tests check the gVisor recording rules and alerts with it (promtool check rules, promtool
# test rules on series scraped from real sandboxes), so they are judged by Prometheus' own rule engine.
source "$(dirname "$0")/lib.sh"

# Prometheus' Go module is versioned v0.<minor>.<patch> for Prometheus 3.<minor>.<patch>.
PROMETHEUS_MODULE_VERSION="v0.316.0"
dir="$TOOLS_DIR/promtool-$PROMETHEUS_MODULE_VERSION"
if ! { [ -x "$dir/promtool" ] && grep -q "$PROMETHEUS_MODULE_VERSION" <<<"$(go version -m "$dir/promtool" 2>/dev/null)"; }; then
  log "installing promtool (github.com/prometheus/prometheus $PROMETHEUS_MODULE_VERSION; cold: a few minutes on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION"
fi
echo "$dir/promtool"
