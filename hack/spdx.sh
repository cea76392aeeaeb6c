#!/usr/bin/env bash
# Adds the SPDX header (copyright and Apache-2.0, see LICENSE) to every tracked Go and shell file that lacks it.
# `make test` checks the Go files through golangci-lint's goheader linter (.golangci.yaml); run this to fix them.
set -euo pipefail
cd "$(dirname "$0")/.."
copyright='SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors'
license='SPDX-License-Identifier: Apache-2.0'
while IFS= read -r f; do
  [ -f "$f" ] || continue
  grep -q "$license" "$f" && continue
  case "$f" in
    *.go)
      # A build constraint must stay first in the file; the header goes before it (Go allows comments there).
      { printf '// %s\n// %s\n\n' "$copyright" "$license"; cat "$f"; } >"$f.spdx" ;;
    *.sh|.ci/run)
      { head -n1 "$f"; printf '# %s\n# %s\n' "$copyright" "$license"; tail -n +2 "$f"; } >"$f.spdx" ;;
    *) continue ;;
  esac
  chmod --reference="$f" "$f.spdx"
  mv "$f.spdx" "$f"
done < <(git ls-files --cached --others --exclude-standard '*.go' '*.sh' .ci/run)
