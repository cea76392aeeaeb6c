#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs a real Prometheus (github.com/prometheus/prometheus cmd/prometheus, the module promtool comes from) and
# builds test/tools/prometheus-config (prometheus-operator's own config generator, its own module) into
# $TOOLS_DIR/prometheus-<version>/ and $TOOLS_DIR/prometheus-config-<source hash>/, and prints
# "<prometheus binary> <prometheus-config binary>". test/e2e runs that Prometheus on the configuration the operator
# makes of the controller's ScrapeConfigs and PrometheusRule, scraping a real node.
source "$(dirname "$0")/lib.sh"

# Prometheus' Go module is versioned v0.<minor>.<patch> for Prometheus 3.<minor>.<patch> (as in promtool.sh).
PROMETHEUS_MODULE_VERSION="v0.316.0"
dir="$TOOLS_DIR/prometheus-$PROMETHEUS_MODULE_VERSION"
if ! { [ -x "$dir/prometheus" ] && grep -q "$PROMETHEUS_MODULE_VERSION" <<<"$(go version -m "$dir/prometheus" 2>/dev/null)"; }; then
  log "installing prometheus (github.com/prometheus/prometheus $PROMETHEUS_MODULE_VERSION; cold: a few minutes on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_MODULE_VERSION"
fi

src="$REPO_ROOT/test/tools/prometheus-config"
hash=$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go | sha256sum | cut -c1-16)
cfgdir="$TOOLS_DIR/prometheus-config-$hash"
if [ ! -x "$cfgdir/prometheus-config" ]; then
  log "building prometheus-config (prometheus-operator's config generator; cold: a few minutes on 2 cores)"
  mkdir -p "$cfgdir"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$cfgdir/prometheus-config.tmp.$$" .)
  mv "$cfgdir/prometheus-config.tmp.$$" "$cfgdir/prometheus-config"
fi
echo "$dir/prometheus $cfgdir/prometheus-config"
