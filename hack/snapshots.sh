#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Regenerates every golden file in the repository (`make snapshots`): runs, with UPDATE_SNAPSHOTS=1 and the real
# components, the tests of every package whose tests read UPDATE_SNAPSHOTS (directly, or through test/testutil's
# Golden and Updating), so no golden is left out because a list here forgot it. Review the diff afterwards: a
# changed golden is a changed product.
set -euo pipefail
source "$(dirname "$0")/tools/env.sh"
cd "$REPO_ROOT"

export REQUIRE_REAL_COMPONENTS=1
mapfile -t pkgs < <(grep -rlE --include='*_test.go' 'UPDATE_SNAPSHOTS|testutil\.(Golden|Updating)\(' . | xargs -n1 dirname | sort -u)
log "regenerating the goldens of: ${pkgs[*]}"
# A package of a module of its own (cmd/gvisor-metric-server, ...) is tested from its own module.
root_module="$(go list -m)"
main_pkgs=() rc=0
for p in "${pkgs[@]}"; do
  if [ "$(cd "$p" && go list -m)" = "$root_module" ]; then
    main_pkgs+=("$p")
  else
    (cd "$p" && UPDATE_SNAPSHOTS=1 go test -count=1 .) || rc=1
  fi
done
UPDATE_SNAPSHOTS=1 go test -count=1 "${main_pkgs[@]}" || rc=1
exit "$rc"
