#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs NVIDIA's container toolkit commands nvidia-ctk and nvidia-cdi-hook (github.com/NVIDIA/nvidia-container-toolkit)
# from the Go module proxy into $TOOLS_DIR/nvidia-container-toolkit-<version>/ and prints that directory. The GPU
# operator's CDI specs are nvidia-ctk's and their createContainer hooks nvidia-cdi-hook's; test/sandbox generates a
# spec with nvidia-ctk and runs its hooks through runsc. Built with cgo, as NVIDIA builds them (nvidia-ctk links
# go-nvml, which loads the driver's library when there is one).
source "$(dirname "$0")/lib.sh"

NVIDIA_TOOLKIT_VERSION="v1.20.2"
dir="$TOOLS_DIR/nvidia-container-toolkit-$NVIDIA_TOOLKIT_VERSION"
built() {
  local b
  for b in nvidia-ctk nvidia-cdi-hook; do
    [ -x "$dir/$b" ] && grep -q "$NVIDIA_TOOLKIT_VERSION" <<<"$(go version -m "$dir/$b" 2>/dev/null)" || return 1
  done
}
# gcc: cgo for the toolkit, and test/sandbox compiles its driver stand-in's libraries with it.
if ! gcc --version >/dev/null 2>&1; then
  log "installing Debian's gcc with apt (about a minute)"
  [ "$(id -u)" = 0 ] || { log "apt needs root: run as root or install the Debian package gcc yourself"; exit 1; }
  DEBIAN_FRONTEND=noninteractive quietly apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive quietly apt-get install -y -qq --no-install-recommends gcc libc6-dev >&2
fi
if ! built; then
  log "installing nvidia-ctk and nvidia-cdi-hook (github.com/NVIDIA/nvidia-container-toolkit $NVIDIA_TOOLKIT_VERSION; cold: about two minutes)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=1 quietly go install -trimpath -ldflags "-s -w" \
    "github.com/NVIDIA/nvidia-container-toolkit/cmd/nvidia-ctk@$NVIDIA_TOOLKIT_VERSION" \
    "github.com/NVIDIA/nvidia-container-toolkit/cmd/nvidia-cdi-hook@$NVIDIA_TOOLKIT_VERSION"
fi
echo "$dir"
