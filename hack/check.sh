#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# The fast tier (`make check`), for every change before it is committed: the static checks and the phase of
# `make test` whose tests start no real node (hack/phases.sh: unit tests, render goldens, helm, the control plane,
# gardener-apiserver). It finds the tools where `make test` installed them (hack/tools/env.sh: instant once they are
# built; on a fresh machine it builds them first, as `make test` would); it runs no real node and no QEMU guest.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
source "$(dirname "$0")/phases.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1

trap phase_summary EXIT
phase_packages
phase static "$REPO_ROOT/hack/lint.sh"
phase fast fast_phase
