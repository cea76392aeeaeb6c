# gardener-extension-runtime-gvisor
#
# Every target installs what it needs into a tool cache outside the clone
# ($(TOOLS_DIR)), so a second run and CI's fresh clone on the same machine reuse it.

SHELL        := /usr/bin/env bash
.SHELLFLAGS  := -euo pipefail -c
REPO_ROOT    := $(shell pwd)
MODULE       := github.com/runtime-gvisor/gardener-extension-runtime-gvisor
# VERSION stamps binaries and, for release versions, the tags of our images (see imagevector/README.md).
VERSION      ?= $(shell cat VERSION)
LD_FLAGS     := -s -w -X $(MODULE)/pkg/version.Version=$(VERSION)
export TOOLS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/runtime-gvisor
GOARCH       ?= $(shell go env GOARCH)

BINARIES     := gardener-extension-runtime-gvisor gardener-extension-admission-runtime-gvisor gvisor-installer gvisor-idle gvisor-render

# comma is a literal comma inside $(or ...) arguments.
comma := ,

.PHONY: all
all: build

## build: the project's binaries into bin/, stamped with VERSION (static, CGO_ENABLED=0)
.PHONY: build
build:
	@mkdir -p bin
	@for b in $(BINARIES); do \
	  if [ -d cmd/$$b ]; then CGO_ENABLED=0 go build -trimpath -ldflags "$(LD_FLAGS)" -o bin/$$b ./cmd/$$b; fi; \
	done

## tools: every real component the tests use (helm, kube-apiserver, etcd, kube-controller-manager, containerd releases, runsc,
## Debian's busybox-static and CNI plugins for the real-sandbox nodes, Prometheus' promtool for the monitoring rules, a real
## Prometheus and prometheus-operator's config generator for the shoot Prometheus of test/e2e, and the kube-state-metrics
## release Gardener runs for every shoot; crictl, QEMU, the VM node's Debian disk, Gardener's gardener-node-agent and SIG
## Network's kube-network-policies for test/vmnode)
.PHONY: tools tool-helm tool-control-plane tool-containerd tool-gvisor tool-dbus tool-node tool-golangci-lint tool-promtool tool-prometheus tool-kube-state-metrics tool-crictl tool-vm-node tool-node-agent tool-network-policies tool-nvidia-toolkit
tools: tool-helm tool-control-plane tool-containerd tool-gvisor tool-dbus tool-node tool-golangci-lint tool-promtool tool-prometheus tool-kube-state-metrics tool-crictl tool-vm-node tool-node-agent tool-network-policies tool-nvidia-toolkit
tool-helm:
	@hack/tools/helm.sh >/dev/null
tool-control-plane:
	@hack/tools/control-plane.sh >/dev/null
tool-containerd:
	@hack/tools/containerd.sh >/dev/null
tool-gvisor:
	@hack/tools/gvisor.sh >/dev/null && hack/tools/gvisor.sh rebuild >/dev/null
tool-dbus:
	@hack/tools/dbus.sh >/dev/null
tool-node:
	@hack/tools/node.sh >/dev/null
tool-golangci-lint:
	@hack/tools/golangci-lint.sh >/dev/null
tool-promtool:
	@hack/tools/promtool.sh >/dev/null
tool-prometheus:
	@hack/tools/prometheus.sh >/dev/null
tool-kube-state-metrics:
	@hack/tools/kube-state-metrics.sh >/dev/null
tool-crictl:
	@hack/tools/crictl.sh >/dev/null
tool-vm-node:
	@hack/tools/vm-node.sh >/dev/null
tool-node-agent:
	@hack/tools/node-agent.sh >/dev/null
tool-network-policies:
	@hack/tools/network-policies.sh >/dev/null
tool-nvidia-toolkit:
	@hack/tools/nvidia-toolkit.sh >/dev/null

## test: install the tools, then run every test in timed phases (hack/phases.sh): static checks; the tests that start
## no real node; the real-node packages (containerd, the kubelet, real gVisor pods); the QEMU node's tests alone
.PHONY: test
test: tools
	@hack/test.sh

## gpu-check: on a machine with an NVIDIA GPU, as root: gVisor installed by this tree's installer on a containerd 2.4
## node, the GPU pre-flight and proof, then nvidia-smi (and PyTorch where the machine has it) natively and in gVisor,
## as a table (test/gpu), the GPUs handed to the containers through a CDI spec; on a machine without a GPU it says so
## and fails before building anything
.PHONY: gpu-check
gpu-check:
	@hack/gpu-check.sh

## snapshots: regenerate every golden file (each package whose tests read UPDATE_SNAPSHOTS, real components included; review the diff!)
.PHONY: snapshots
snapshots: tools
	@hack/snapshots.sh

## generate: regenerate example/controller-registration.yaml from the chart and VERSION
.PHONY: generate
generate:
	@go run ./hack/generate-controller-registration -version "$(VERSION)" -chart charts/gardener-extension-runtime-gvisor -out example/controller-registration.yaml

## gvisor-sums: regenerate imagevector/gvisor-sums.yaml, the gVisor release's checksum anchor (builds amd64 and arm64)
.PHONY: gvisor-sums
gvisor-sums:
	@hack/gvisor-sums.sh

## dashboard-picture: docs/images/gvisor-dashboard.png, drawn by our code (hack/dashboard-picture) from the shoot
## dashboard's range queries on a real Prometheus scraping a real gVisor node under a load (test/e2e's
## TestSandboxMetricsOnRealNode, root; the results are kept beside it as gvisor-dashboard.json)
.PHONY: dashboard-picture
dashboard-picture: tools
	@hack/dashboard-picture.sh

## bench: the benchmarks recorded in BENCHMARKS.md
.PHONY: bench
bench: tools
	@hack/bench.sh

## bench-seed: seed-scale benchmark (BENCHMARKS.md, "Seed scale"): 50 shoots x 3 pools, then 100 shoots x 5 pools, on
## the real control plane with gardener-resource-manager, our controller and the field's (built by
## hack/tools/field-extension.sh from a clone named by FIELD_EXTENSION_GIT_DIR; without it only ours) as separate
## processes, every API request of both counted from kube-apiserver's audit log. SIZES=10x3 gives 30 pools.
## Not part of `make test`.
.PHONY: bench-seed
bench-seed: tool-control-plane
	@field=""; if [ -n "$${FIELD_EXTENSION_GIT_DIR:-}" ]; then field="$$(hack/tools/field-extension.sh)"; fi; \
	KUBEBUILDER_ASSETS="$$(hack/tools/control-plane.sh)" REQUIRE_REAL_COMPONENTS=1 GVISOR_SEEDBENCH=1 \
	  GVISOR_SEEDBENCH_SIZES=$(or $(SIZES),$(if $(SHOOTS),$(SHOOTS)x3,50x3$(comma)100x5)) \
	  GVISOR_FIELD_EXTENSION="$$field" go test ./test/seedbench -run '^$$' -bench SeedScale -benchtime 1x -timeout 120m -v

## bench-installer: the node installer's benchmarks (BENCHMARKS.md, "Node installer"): real release, real containerd 2.4
.PHONY: bench-installer
bench-installer: tool-containerd tool-gvisor
	GVISOR_TEST_CONTAINERD="$$(hack/tools/containerd.sh)" GVISOR_TEST_GVISOR_DIR="$$(hack/tools/gvisor.sh)" REQUIRE_REAL_COMPONENTS=1 \
	  go test ./pkg/installer -run '^$$' -bench . -benchtime 5x

## fuzz-installer: fuzz the containerd config editor for FUZZTIME (default 60s); failures land in its testdata/fuzz
.PHONY: fuzz-installer
fuzz-installer:
	go test ./pkg/installer/containerdconfig -run '^$$' -fuzz FuzzAddRunsc -fuzztime $(or $(FUZZTIME),60s) -parallel 1

## demo: the main job on an embedded default: a local control plane, our controller, example/ applied, results printed
## (MODE=osc: the OperatingSystemConfig delivery mode, the demo pool's OSC as the webhook mutates it)
.PHONY: demo
demo:
	@$(MAKE) --no-print-directory build BINARIES=gardener-extension-runtime-gvisor
	@hack/demo.sh $(if $(MODE),--mode $(MODE))

## start: run the controller against the seed in ./dev/kubeconfig
.PHONY: start
start:
	@test -f dev/kubeconfig || { echo "dev/kubeconfig missing: put the kubeconfig of the seed (a cluster with Gardener's CRDs) there"; exit 1; }
	go run -ldflags "$(LD_FLAGS)" ./cmd/gardener-extension-runtime-gvisor \
	  --kubeconfig=dev/kubeconfig --leader-election=false --ignore-operation-annotation=false \
	  --gardener-version=v1.149.3 --heartbeat-namespace=default

## images: the extension, admission and installation images, built from their one definition (pkg/images) without
## Docker on a synthetic base, as archives bin/images/<image>-linux-<arch>.tar for `ctr -n k8s.io images import` or
## `docker load`, plus bin/images/images_overwrite.yaml. Named as a build of VERSION renders them (a -dev VERSION: the
## last released tag); REGISTRY=<repository path> and TAG= name them otherwise. ARCHS (default this machine's): e.g.
## ARCHS="amd64 arm64". BASE=pinned: on the release's distroless bases (pkg/images/bases.yaml, from the registry)
.PHONY: images
images:
	@go run ./hack/images build -version "$(VERSION)" -archs "$(or $(ARCHS),$(GOARCH))" -gvisor-dir "$(GOARCH)=$$(hack/tools/gvisor.sh)" \
	  $(if $(REGISTRY),-registry "$(REGISTRY)") $(if $(TAG),-tag "$(TAG)") $(if $(BASE),-base "$(BASE)")

## push-images: the release: every image for linux/amd64 and linux/arm64 on the distroless bases pinned by digest
## (pkg/images/bases.yaml), built with GO_VERSION's toolchain from a clean tree, pushed as multi-arch indexes to
## REGISTRY (default imagevector/images.yaml's ghcr.io/runtime-gvisor); VERSION=vX.Y.Z (a release) is required
.PHONY: push-images
push-images:
	@go run ./hack/images push -version "$(VERSION)" $(if $(REGISTRY),-registry "$(REGISTRY)")

## check: the fast tier, for every change: the static checks and every test that starts no real node (unit, render
## goldens, helm, envtest's control plane, gardener-apiserver), as the first two phases of `make test` run them
.PHONY: check
check:
	@hack/check.sh

## lint: gofmt, go vet and golangci-lint (.golangci.yaml) alone, as `make test` and `make check` run them first
.PHONY: lint
lint: tool-golangci-lint
	@hack/lint.sh

.PHONY: help
help:
	@grep -E '^## ' Makefile | sed 's/^## //'
