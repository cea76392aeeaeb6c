#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Runs every test with the real components installed by `make tools`, in timed phases (hack/phases.sh): the static
# checks, the tests that start no real node (they fail in minutes), the real-node packages, then the VM node's tests
# with nothing else running beside the guest. The first failing phase ends the run; the summary names each phase's
# wall time either way.
# REQUIRE_REAL_COMPONENTS=1 turns a test's "component not installed, skipping" into a failure,
# so CI can never pass by skipping.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
source "$(dirname "$0")/phases.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1

log "HELM_BIN=$HELM_BIN"
log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
log "GVISOR_TEST_CONTAINERD=$GVISOR_TEST_CONTAINERD"
log "GVISOR_TEST_GVISOR_DIR=$GVISOR_TEST_GVISOR_DIR"
log "GVISOR_TEST_DBUS_DAEMON=$GVISOR_TEST_DBUS_DAEMON"
log "GVISOR_TEST_NODE=$GVISOR_TEST_NODE"

trap phase_summary EXIT
phase_packages

# The per-package bounds are each phase's longest package on a loaded 2-core machine, with room to spare, so that a
# hung test ends within CI's 90 minutes (BENCHMARKS.md "Test suite" has the measured times).
phase static "$REPO_ROOT/hack/lint.sh"
phase fast fast_phase
node() {
  # The VM packages' other tests start real nodes: they run here, without the VM tests, test/e2e (the longest) first.
  GVISOR_TEST_PHASE=node go test -count=1 -timeout 40m -skip "$(vm_tests "${VM_PKGS[@]}")" "${VM_PKGS[@]}" "${NODE_PKGS[@]}"
}
phase node node
vm() {
  # test/e2e's VM tests alone took about 44 minutes here (the OSC mode 13, cgroup v2 with its reboot 20, cgroup v1 4,
  # containerd 1.7 7 or more): a 40-minute bound cut the last one.
  GVISOR_TEST_PHASE=vm go test -count=1 -p 1 -timeout 70m -run "$(vm_tests "${VM_PKGS[@]}")" "${VM_PKGS[@]}"
}
phase vm vm
