#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs what the real-sandbox test nodes (test/node) need besides containerd and gVisor, from Debian with apt,
# and prints ONE line of space-separated "name=path" entries (GVISOR_TEST_NODE):
#   busybox=/bin/busybox  Debian's busybox-static: the static busybox the tests pack into their container image.
#   cni=/usr/lib/cni      Debian's containernetworking-plugins: the bridge and host-local plugins of the pod network.
# Neither package ships a service, so no policy-rc.d guard is needed (unlike containerd.sh and dbus.sh).
# apt runs only when something is missing; a second run changes nothing.
source "$(dirname "$0")/lib.sh"

busybox=/bin/busybox
cni=/usr/lib/cni

# ok: the static busybox runs and the CNI plugins the tests configure are executable.
ok() {
  "$busybox" true 2>/dev/null && [ -x "$cni/bridge" ] && [ -x "$cni/host-local" ] && [ -x "$cni/loopback" ]
}

if ! ok; then
  log "installing Debian's busybox-static and containernetworking-plugins with apt (under a minute)"
  [ "$(id -u)" = 0 ] || { log "apt needs root: run as root or install the Debian packages busybox-static and containernetworking-plugins yourself"; exit 1; }
  DEBIAN_FRONTEND=noninteractive quietly apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive quietly apt-get install -y -qq --no-install-recommends busybox-static containernetworking-plugins >&2
fi
ok || { log "$busybox or $cni/{bridge,host-local,loopback} missing after installing busybox-static and containernetworking-plugins"; exit 1; }
# The test image needs a static busybox: a dynamic one would not run without the host's libraries.
if ! LC_ALL=C file -L "$busybox" 2>/dev/null | grep -q 'statically linked' && ldd "$busybox" >/dev/null 2>&1; then
  log "$busybox is dynamically linked: install busybox-static (not busybox)"
  exit 1
fi
echo "busybox=$busybox cni=$cni"
