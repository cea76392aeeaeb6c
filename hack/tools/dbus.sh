#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs Debian's D-Bus system bus daemon (package `dbus`, which brings `dbus-daemon`) for the installer's
# systemd restarter test (pkg/installer/restart: a real bus on a socket under a temp dir, as the pod sees the
# node's bus under --host-root) and prints the path of dbus-daemon. No bus is started on this machine: the
# policy-rc.d below keeps the package's maintainer scripts from starting the system bus service.
source "$(dirname "$0")/lib.sh"

bin=/usr/bin/dbus-daemon
if ! "$bin" --version >/dev/null 2>&1; then
  log "installing Debian's dbus with apt (under a minute)"
  [ "$(id -u)" = 0 ] || { log "apt needs root: run as root or install the Debian package dbus yourself"; exit 1; }
  policy=/usr/sbin/policy-rc.d created_policy=""
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod 0755 "$policy"; created_policy=1; fi
  DEBIAN_FRONTEND=noninteractive quietly apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive quietly apt-get install -y -qq --no-install-recommends dbus >&2 || { [ -n "$created_policy" ] && rm -f "$policy"; exit 1; }
  [ -n "$created_policy" ] && rm -f "$policy"
fi
"$bin" --version >/dev/null 2>&1 || { log "$bin does not run after installing dbus"; exit 1; }
echo "$bin"
