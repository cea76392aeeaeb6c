#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Installs the real containerd releases the installer tests run against and prints ONE line of space-separated
# "version=dir" entries; each dir holds containerd, ctr and containerd-shim-runc-v2 of that release.
#   1.6.20  Debian's package (apt), the 1.6 that real Debian/Ubuntu nodes run; copied into the tool cache.
#   1.7.35  built from the module directory: its go.mod has exclude directives, so `go install` refuses it.
#   2.0.14  built the same way (exclude directives too), with -mod=mod: go build does not take the vendor/ of its module copy.
#   2.2.9   `go install` (config version 3 is its default).
#   2.4.2   `go install` (config version 4 is its default).
# Every release is cached in $TOOLS_DIR/containerd-<version>/ and skipped when the cached binary reports that version.
# Arguments, if any, name the releases to install (e.g. `containerd.sh 2.4.2`, what `make demo` runs); none: all.
source "$(dirname "$0")/lib.sh"

# reports_version DIR VERSION: the cached containerd (and its companions) exist and report VERSION.
reports_version() {
  local dir=$1 ver=$2
  [ -x "$dir/containerd" ] && [ -x "$dir/ctr" ] && [ -x "$dir/containerd-shim-runc-v2" ] &&
    "$dir/containerd" --version 2>/dev/null | grep -Eq "[ v]${ver//./\\.}([~+ -]|$)"
}

install_debian() { # version
  local ver=$1 dir="$TOOLS_DIR/containerd-$1"
  reports_version "$dir" "$ver" && { echo "$ver=$dir"; return; }
  if ! /usr/bin/containerd --version 2>/dev/null | grep -q " ${ver//./\\.}~"; then
    log "installing Debian's containerd $ver with apt"
    [ "$(id -u)" = 0 ] || { log "apt needs root: run as root or install containerd $ver yourself"; exit 1; }
    # policy-rc.d 101 keeps the package's maintainer scripts from starting a containerd service on this machine.
    local policy=/usr/sbin/policy-rc.d created_policy=""
    if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod 0755 "$policy"; created_policy=1; fi
    DEBIAN_FRONTEND=noninteractive quietly apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive quietly apt-get install -y -qq --no-install-recommends containerd >&2 || { [ -n "$created_policy" ] && rm -f "$policy"; exit 1; }
    [ -n "$created_policy" ] && rm -f "$policy"
  fi
  mkdir -p "$dir"
  local b
  for b in containerd ctr containerd-shim-runc-v2; do
    cp /usr/bin/$b "$dir/$b.tmp.$$" && mv "$dir/$b.tmp.$$" "$dir/$b"
  done
  reports_version "$dir" "$ver" || { log "Debian's containerd is not $ver: $(/usr/bin/containerd --version)"; exit 1; }
  echo "$ver=$dir"
}

install_from_module_dir() { # version module [go build flags...]
  local ver=$1 mod=$2 dir="$TOOLS_DIR/containerd-$1"
  shift 2
  reports_version "$dir" "$ver" && { echo "$ver=$dir"; return; }
  log "building containerd $ver from the module directory (cold: several minutes on 2 cores)"
  local src
  src=$(go mod download -json "$mod@v$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [ -d "$src" ] || { log "go mod download $mod@v$ver gave no directory"; exit 1; }
  local work="$TOOLS_DIR/containerd-$ver.src"
  rm -rf "$work" && cp -r "$src" "$work" && chmod -R u+w "$work"
  mkdir -p "$dir"
  (cd "$work" && CGO_ENABLED=0 go build "$@" -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $mod/version.Version=$ver" -o "$dir/" ./cmd/containerd ./cmd/ctr ./cmd/containerd-shim-runc-v2) >&2
  rm -rf "$work"
  reports_version "$dir" "$ver" || { log "built containerd does not report $ver"; exit 1; }
  echo "$ver=$dir"
}

install_v2() { # version
  local ver=$1 dir="$TOOLS_DIR/containerd-$1" mod=github.com/containerd/containerd/v2
  reports_version "$dir" "$ver" && { echo "$ver=$dir"; return; }
  log "go install containerd $ver (cold: 1.5-2 min per binary on 2 cores)"
  mkdir -p "$dir"
  GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $mod/version.Version=$ver" \
    "$mod/cmd/containerd@v$ver" "$mod/cmd/ctr@v$ver" "$mod/cmd/containerd-shim-runc-v2@v$ver" >&2
  reports_version "$dir" "$ver" || { log "installed containerd does not report $ver"; exit 1; }
  echo "$ver=$dir"
}

install() { # version
  case "$1" in
    1.6.20) install_debian 1.6.20 ;;
    1.7.35) install_from_module_dir 1.7.35 github.com/containerd/containerd ;;
    2.0.14) install_from_module_dir 2.0.14 github.com/containerd/containerd/v2 -mod=mod ;;
    2.2.9 | 2.4.2) install_v2 "$1" ;;
    *) log "containerd $1 is not one of the releases this project tests (1.6.20 1.7.35 2.0.14 2.2.9 2.4.2)"; exit 1 ;;
  esac
}

# One plain assignment per release, so that `set -e` stops at the first release that fails.
entries=()
for ver in "${@:-1.6.20 1.7.35 2.0.14 2.2.9 2.4.2}"; do
  for v in $ver; do
    entry=$(install "$v")
    entries+=("$entry")
  done
done
echo "${entries[*]}"
