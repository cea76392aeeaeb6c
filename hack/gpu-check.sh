#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# The GPU check (test/gpu): on a machine with an NVIDIA GPU, as root, installs gVisor with this tree's installer on a
# containerd 2.4 node in namespaces, proves the GPUs through gVisor, and runs nvidia-smi (and PyTorch where the
# machine has it) natively and in gVisor, the GPUs handed to the containers through a CDI spec as the GPU operator
# does. Prints a table; GVISOR_GPU_CHECK_TABLE=<file> also writes it there. Without a GPU it says so and fails.
# Builds only what it needs (containerd 2.4, runsc, the node's tools); needs no network once they are cached.
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"

# Said before anything is built: a check that checked nothing must not pass.
if [[ ! -e /dev/nvidiactl ]]; then
  log "no NVIDIA GPU on this machine (/dev/nvidiactl missing): nothing checked; run it where an NVIDIA driver is loaded"
  exit 1
fi
[[ "$(id -u)" = 0 ]] || { log "the GPU check needs root: it runs containerd and opens the GPU devices"; exit 1; }

export GVISOR_TEST_CONTAINERD="$("$REPO_ROOT/hack/tools/containerd.sh" 2.4.2)"
export GVISOR_TEST_GVISOR_DIR="$("$REPO_ROOT/hack/tools/gvisor.sh")"
export GVISOR_TEST_NODE="$("$REPO_ROOT/hack/tools/node.sh")"
export GVISOR_GPU_CHECK=1
go test -count=1 -timeout 20m -v -run '^TestGPUCheck$' ./test/gpu
