#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the tool installers. Each installer prints the path of what it installed on stdout
# and logs to stderr; it skips the build when the cached binary already reports the wanted version.
set -euo pipefail
TOOLS_DIR="${TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runtime-gvisor}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf '[tools] %s\n' "$*" >&2; }
mkdir -p "$TOOLS_DIR"

# quietly CMD...: runs CMD with its output kept aside and shown (on stderr) only when CMD fails, for commands that
# print a line per step (apt's per-package lines).
quietly() {
  local out rc=0
  out=$(mktemp)
  "$@" >"$out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || cat "$out" >&2
  rm -f "$out"
  return "$rc"
}
