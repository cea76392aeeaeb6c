#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# The GPU check (test/gpu): on a machine with an NVIDIA GPU, as root, installs gVisor with this tree's installer on a
# containerd 2.4 node in namespaces, proves the GPUs through gVisor, and runs nvidia-smi (and PyTorch where the
# machine has it) natively and in gVisor. Prints a table; GVISOR_GPU_CHECK_TABLE=<file> also writes it there.
# Builds only what it needs (containerd 2.4, runsc, the node's tools); needs no network once they are cached.
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"

export GVISOR_TEST_CONTAINERD="$("$REPO_ROOT/hack/tools/containerd.sh" 2.4.2)"
export GVISOR_TEST_GVISOR_DIR="$("$REPO_ROOT/hack/tools/gvisor.sh")"
export GVISOR_TEST_NODE="$("$REPO_ROOT/hack/tools/node.sh")"
export GVISOR_GPU_CHECK=1
if [[ ! -e /dev/nvidiactl ]]; then
  log "no NVIDIA GPU on this machine (/dev/nvidiactl missing): the check has nothing to run; it needs an NVIDIA driver loaded"
fi
go test -count=1 -timeout 20m -v -run '^TestGPUCheck$' ./test/gpu
