#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Sourced by hack/test.sh and hack/check.sh: which tests each phase of `make test` runs, and how a phase is timed.
#
# The phases, in order (each one's packages are derived from the tests' imports, so a new test lands in the right
# phase without a list here to forget):
#   fast  every package whose tests start no real node: unit tests, render goldens, helm, the control plane
#         (envtest), gardener-apiserver, a real dbus-daemon; `make check` runs this phase after the static checks
#   node  the packages whose tests start a real node (test/node, test/kubenode, test/installer's containerd
#         daemons, test/sandbox: the harnesses themselves and every package that imports one), without their VM
#         tests
#   vm    the tests that boot the QEMU node (test/vmnode), one package at a time and nothing else beside the guest:
#         a TCG guest starved by other tests' compilers stalls (issue 41)
# A VM test is a top-level test of a _test.go file that imports test/vmnode (or of test/vmnode itself); vmnode.Boot
# refuses to boot in any other phase (GVISOR_TEST_PHASE), so a VM test the selection misses fails by name.

MODULE_PATH="$(go list -m)"
NODE_HARNESSES=(test/node test/kubenode test/installer test/sandbox)
VM_HARNESS=test/vmnode

# phase_packages fills FAST_PKGS, NODE_PKGS and VM_PKGS (import paths) from the test binaries' dependencies.
phase_packages() {
  FAST_PKGS=() NODE_PKGS=() VM_PKGS=()
  declare -A kind=()
  local pkg deps
  while read -r pkg deps; do
    # go list -test prints each package, its test variant ("p [p.test]") and its external test package ("p_test
    # [p.test]"): they all count for p.
    pkg="${pkg%% *}"
    pkg="${pkg%_test}"
    case "$pkg" in *.test) continue ;; esac
    local k=fast h
    for h in "${NODE_HARNESSES[@]}"; do
      [[ " $deps " == *" $MODULE_PATH/$h "* || "$pkg" == "$MODULE_PATH/$h" ]] && k=node
    done
    [[ " $deps " == *" $MODULE_PATH/$VM_HARNESS "* || "$pkg" == "$MODULE_PATH/$VM_HARNESS" ]] && k=vm
    case "${kind[$pkg]:-}/$k" in
      vm/* | node/fast) ;;
      *) kind[$pkg]=$k ;;
    esac
  done < <(go list -test -f '{{.ImportPath}}|{{join .Deps " "}}' ./... | sed 's/ \[[^]]*\]|/|/; s/|/ /')
  for pkg in $(printf '%s\n' "${!kind[@]}" | sort); do
    case "${kind[$pkg]}" in
      fast) FAST_PKGS+=("$pkg") ;;
      node) NODE_PKGS+=("$pkg") ;;
      vm) VM_PKGS+=("$pkg") ;;
    esac
  done
}

# vm_tests PKG... prints the anchored -run pattern of the packages' VM tests: the top-level tests of their _test.go
# files that import test/vmnode (every test of test/vmnode itself).
vm_tests() {
  local pkg dir f names=()
  for pkg in "$@"; do
    dir="${pkg#"$MODULE_PATH"/}"
    for f in "$dir"/*_test.go; do
      if [ "$dir" = "$VM_HARNESS" ] || grep -q "\"$MODULE_PATH/$VM_HARNESS\"" "$f"; then
        mapfile -t -O "${#names[@]}" names < <(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' "$f")
      fi
    done
  done
  local IFS='|'
  echo "^(${names[*]})\$"
}

# fast_phase runs the fast phase's tests: the module's packages whose tests start no real node, then the modules of
# their own (cmd/gvisor-metric-server and cmd/gvisor-gpu-check build against gVisor's dependency versions).
fast_phase() {
  GVISOR_TEST_PHASE=fast go test -count=1 -timeout 20m "${FAST_PKGS[@]}"
  local m
  for m in cmd/gvisor-metric-server cmd/gvisor-gpu-check; do
    (cd "$m" && GVISOR_TEST_PHASE=fast go test -count=1 -timeout 5m ./...)
  done
}

# PHASE_TIMES holds "name seconds result" for every phase run so far; phase_summary prints them.
PHASE_TIMES=()

# phase NAME CMD...: runs CMD as phase NAME, announcing it and printing its wall time.
phase() {
  local name="$1" t0 rc=0
  shift
  printf '\n[phase] %s: start (%s)\n' "$name" "$(date -u +%H:%M:%S)"
  t0=$(date +%s)
  "$@" || rc=$?
  local secs=$(($(date +%s) - t0)) result=ok
  [ "$rc" = 0 ] || result="FAILED (exit $rc)"
  PHASE_TIMES+=("$name $secs $result")
  printf '[phase] %s: %s in %d s (%d min %d s)\n' "$name" "$result" "$secs" $((secs / 60)) $((secs % 60))
  return "$rc"
}

# phase_summary prints every phase's wall time, for BENCHMARKS.md's "Test suite" table.
phase_summary() {
  local line name secs result
  printf '\n[phase] summary (wall time per phase):\n'
  for line in "${PHASE_TIMES[@]}"; do
    read -r name secs result <<<"$line"
    printf '[phase]   %-8s %5d s  %s\n' "$name" "$secs" "$result"
  done
}
