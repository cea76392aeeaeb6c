#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/images/gvisor-dashboard.png: test/monitoring's TestSandboxMemoryMetric (root: real containerd,
# runsc, pods) evaluates every panel query of the shoot dashboard with promtool on the real sandboxes' series and
# writes the results to docs/images/gvisor-dashboard.json; hack/dashboard-picture (its own module) draws them.
# The picture is our rendering of the panels' data, not a Plutono screenshot.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
cd "$REPO_ROOT"

GVISOR_DASHBOARD_DATA="$REPO_ROOT/docs/images/gvisor-dashboard.json" \
  go test -count=1 -timeout 20m -run '^TestSandboxMemoryMetric$' ./test/monitoring/
(cd hack/dashboard-picture && go run . -in ../../docs/images/gvisor-dashboard.json -out ../../docs/images/gvisor-dashboard.png)
echo "wrote docs/images/gvisor-dashboard.png"
