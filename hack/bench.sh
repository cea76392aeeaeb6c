#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Runs the benchmarks recorded in BENCHMARKS.md with the same real components as the tests.
# Usage: hack/bench.sh [go test -bench regexp]   (output also saved to bin/bench.txt for benchstat)
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
cd "$REPO_ROOT"

mkdir -p bin
go test -run '^$' -bench "${1:-.}" -benchmem -count "${BENCH_COUNT:-5}" ./... | tee bin/bench.txt
