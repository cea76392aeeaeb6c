#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# gofmt, go vet and golangci-lint with .golangci.yaml (Gardener's linter set, funlen 60 for non-test code, the
# SPDX header): the static checks `make test` and `make check` run before the tests, and `make lint` alone.
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"
lint="${GOLANGCI_LINT:-$("$REPO_ROOT/hack/tools/golangci-lint.sh")}"

unformatted="$(gofmt -l $(git ls-files '*.go'))"
test -z "$unformatted" || { echo "gofmt needed (run gofmt -w on them):"; echo "$unformatted"; exit 1; }
go vet ./...
"$lint" run ./...
# cmd/gvisor-metric-server and cmd/gvisor-gpu-check are their own modules (gVisor's dependency versions): vet and
# lint them on their own.
for m in cmd/gvisor-metric-server cmd/gvisor-gpu-check; do
  (cd "$m" && go vet ./... && "$lint" run --config "$REPO_ROOT/.golangci.yaml" ./...)
done
# hack/dashboard-picture is its own module too (the image library stays out of the controller's dependencies).
(cd hack/dashboard-picture && go vet ./... && "$lint" run --config "$REPO_ROOT/.golangci.yaml" ./...)
# test/tools/prometheus-config is its own module (prometheus-operator's dependency versions).
(cd test/tools/prometheus-config && go vet ./... && "$lint" run --config "$REPO_ROOT/.golangci.yaml" ./...)
