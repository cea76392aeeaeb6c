#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Builds the real control plane envtest runs (kube-apiserver, kube-controller-manager, etcd) and the node components of
# the real-node harness (kubelet, kube-scheduler) and kubectl from the Go module proxy into
# $TOOLS_DIR/control-plane-<k8s>-etcd-<etcd>/ and prints that folder (KUBEBUILDER_ASSETS; test/kubenode finds kubelet
# and kube-scheduler there too, test/admission kubectl).
# setup-envtest's downloads cannot work here; these tools modules live in test/tools/.
source "$(dirname "$0")/lib.sh"

K8S_VERSION="v1.35.8"
ETCD_VERSION="v3.6.16"
dir="$TOOLS_DIR/control-plane-$K8S_VERSION-etcd-$ETCD_VERSION"
mkdir -p "$dir"

k8s_ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)"

build_k8s() { # name [the arguments that make it print its version, default --version]
  local name=$1
  shift
  local version_args=(--version)
  [ $# -eq 0 ] || version_args=("$@")
  # Here-strings, not pipes: under pipefail `grep -q` closing the pipe early makes the check fail (SIGPIPE).
  if [ -x "$dir/$name" ] && grep -q "$K8S_VERSION" <<<"$("$dir/$name" "${version_args[@]}" 2>/dev/null)"; then return; fi
  log "building $name $K8S_VERSION (cold: several minutes on 2 cores)"
  (cd "$REPO_ROOT/test/tools/control-plane" && CGO_ENABLED=0 go build -trimpath -ldflags "$k8s_ldflags" -o "$dir/$name.tmp.$$" "./$name")
  mv "$dir/$name.tmp.$$" "$dir/$name"
}

build_etcd() {
  if [ -x "$dir/etcd" ] && grep -q "etcd Version: ${ETCD_VERSION#v}" <<<"$("$dir/etcd" --version 2>/dev/null)"; then return; fi
  log "building etcd $ETCD_VERSION (cold: 2-3 minutes on 2 cores)"
  (cd "$REPO_ROOT/test/tools/etcd" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/etcd.tmp.$$" .)
  mv "$dir/etcd.tmp.$$" "$dir/etcd"
}

build_etcd
build_k8s kube-apiserver
build_k8s kube-controller-manager
build_k8s kube-scheduler
build_k8s kubelet
build_k8s kubectl version --client
echo "$dir"
