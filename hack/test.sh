#!/usr/bin/env bash
# Runs every test with the real components installed by `make tools`.
# REQUIRE_REAL_COMPONENTS=1 turns a test's "component not installed, skipping" into a failure,
# so CI can never pass by skipping.
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1
export HELM_BIN="$(hack/tools/helm.sh)"
export KUBEBUILDER_ASSETS="$(hack/tools/control-plane.sh)"
# One "version=dir" entry per containerd release, separated by spaces; dir holds containerd, ctr, containerd-shim-runc-v2.
export GVISOR_TEST_CONTAINERD="$(hack/tools/containerd.sh)"
# Directory with static runsc and containerd-shim-runsc-v1.
export GVISOR_TEST_GVISOR_DIR="$(hack/tools/gvisor.sh)"
# Debian's dbus-daemon: the systemd restarter test runs against a real bus.
export GVISOR_TEST_DBUS_DAEMON="$(hack/tools/dbus.sh)"
# "busybox=PATH cni=DIR": Debian's static busybox and CNI plugins for the real-sandbox nodes (test/node).
export GVISOR_TEST_NODE="$(hack/tools/node.sh)"

log "HELM_BIN=$HELM_BIN"
log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
log "GVISOR_TEST_CONTAINERD=$GVISOR_TEST_CONTAINERD"
log "GVISOR_TEST_GVISOR_DIR=$GVISOR_TEST_GVISOR_DIR"
log "GVISOR_TEST_DBUS_DAEMON=$GVISOR_TEST_DBUS_DAEMON"
log "GVISOR_TEST_NODE=$GVISOR_TEST_NODE"

test -z "$(gofmt -l $(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $(git ls-files '*.go'); exit 1; }
go vet ./...
go test -count=1 -timeout 40m ./...
