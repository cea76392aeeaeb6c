#!/usr/bin/env bash
# Runs the benchmarks recorded in BENCHMARKS.md with the same real components as the tests.
# Usage: hack/bench.sh [go test -bench regexp]   (output also saved to bin/bench.txt for benchstat)
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"

export HELM_BIN="$(hack/tools/helm.sh)"
export KUBEBUILDER_ASSETS="$(hack/tools/control-plane.sh)"
export GVISOR_TEST_CONTAINERD="$(hack/tools/containerd.sh)"
export GVISOR_TEST_GVISOR_DIR="$(hack/tools/gvisor.sh)"
export GVISOR_TEST_DBUS_DAEMON="$(hack/tools/dbus.sh)"
# Debian's static busybox (and CNI plugins): BenchmarkIdleRSS runs the original extension's idle loop under its sh.
export GVISOR_TEST_NODE="$(hack/tools/node.sh)"

mkdir -p bin
go test -run '^$' -bench "${1:-.}" -benchmem -count "${BENCH_COUNT:-5}" ./... | tee bin/bench.txt
