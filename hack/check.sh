#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# The fast tier (`make check`), for every change before it is committed: the static checks and the phase of
# `make test` whose tests start no real node (hack/phases.sh: unit tests, render goldens, helm, the control plane,
# gardener-apiserver). It installs only the tools that phase uses; what it leaves to `make test` is the real nodes
# (containerd, the kubelet, real gVisor pods) and the QEMU node.
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
source "$(dirname "$0")/phases.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1
HELM_BIN="$("$REPO_ROOT/hack/tools/helm.sh")"
KUBEBUILDER_ASSETS="$("$REPO_ROOT/hack/tools/control-plane.sh")"
GVISOR_TEST_GVISOR_DIR="$("$REPO_ROOT/hack/tools/gvisor.sh")"
GVISOR_TEST_DBUS_DAEMON="$("$REPO_ROOT/hack/tools/dbus.sh")"
GVISOR_TEST_PROMTOOL="$("$REPO_ROOT/hack/tools/promtool.sh")"
GOLANGCI_LINT="$("$REPO_ROOT/hack/tools/golangci-lint.sh")"
export HELM_BIN KUBEBUILDER_ASSETS GVISOR_TEST_GVISOR_DIR GVISOR_TEST_DBUS_DAEMON GVISOR_TEST_PROMTOOL GOLANGCI_LINT

trap phase_summary EXIT
phase_packages
phase static "$REPO_ROOT/hack/lint.sh"
phase fast fast_phase
