#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs golangci-lint from the Go module proxy into $TOOLS_DIR/golangci-lint-<version>/ and prints the binary's
# path. Built with the repository's Go toolchain (go install of the exact module version), as its docs allow, so
# it understands the Go version in go.mod.
source "$(dirname "$0")/lib.sh"

GOLANGCI_LINT_VERSION="v2.15.0"
dir="$TOOLS_DIR/golangci-lint-$GOLANGCI_LINT_VERSION"
if ! { [ -x "$dir/golangci-lint" ] && grep -q "version ${GOLANGCI_LINT_VERSION#v}" <<<"$("$dir/golangci-lint" version 2>/dev/null)"; }; then
  log "installing golangci-lint $GOLANGCI_LINT_VERSION"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install \
    -ldflags "-s -w -X main.version=${GOLANGCI_LINT_VERSION#v}" \
    "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
fi
echo "$dir/golangci-lint"
