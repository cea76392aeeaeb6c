#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Runs every test with the real components installed by `make tools`.
# REQUIRE_REAL_COMPONENTS=1 turns a test's "component not installed, skipping" into a failure,
# so CI can never pass by skipping.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1

log "HELM_BIN=$HELM_BIN"
log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
log "GVISOR_TEST_CONTAINERD=$GVISOR_TEST_CONTAINERD"
log "GVISOR_TEST_GVISOR_DIR=$GVISOR_TEST_GVISOR_DIR"
log "GVISOR_TEST_DBUS_DAEMON=$GVISOR_TEST_DBUS_DAEMON"
log "GVISOR_TEST_NODE=$GVISOR_TEST_NODE"

"$REPO_ROOT/hack/lint.sh"
# The per-package bound: test/e2e, the longest package (the VM node's two tests under TCG), takes about 28 minutes
# on an otherwise idle 2-core machine; 50 leaves room for a loaded one without letting a hung test run past the
# whole job's hour.
go test -count=1 -timeout 50m ./...
# cmd/gvisor-metric-server and cmd/gvisor-gpu-check are their own modules (gVisor's dependency versions): their
# tests run on their own.
for m in cmd/gvisor-metric-server cmd/gvisor-gpu-check; do
  (cd "$m" && go test -count=1 -timeout 5m ./...)
done
