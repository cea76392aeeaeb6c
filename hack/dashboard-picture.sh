#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/images/gvisor-dashboard.png: test/e2e's TestSandboxMetricsOnRealNode (root: a real kubelet node,
# the extension as it ships, a real Prometheus on prometheus-operator's configuration of the controller's objects)
# puts a gVisor pod through a load, runs every panel query of the shoot dashboard as a range query and writes the
# results to docs/images/gvisor-dashboard.json; hack/dashboard-picture (its own module) draws them.
# The picture is our rendering of the panels' data, not a Plutono screenshot.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
cd "$REPO_ROOT"

GVISOR_DASHBOARD_DATA="$REPO_ROOT/docs/images/gvisor-dashboard.json" \
  go test -count=1 -timeout 20m -run '^TestSandboxMetricsOnRealNode$' ./test/e2e/
(cd hack/dashboard-picture && go run . -in ../../docs/images/gvisor-dashboard.json -out ../../docs/images/gvisor-dashboard.png)
echo "wrote docs/images/gvisor-dashboard.png"
