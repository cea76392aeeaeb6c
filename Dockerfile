# syntax=docker/dockerfile:1
# Images of gardener-extension-runtime-gvisor, for linux/amd64 and linux/arm64 (`make docker-images`):
#   --target gardener-extension-runtime-gvisor   the extension controller (static, distroless, nonroot)
#   --target runtime-gvisor-installation         the node installer plus the gVisor release for TARGETARCH
# Every Go build is CGO_ENABLED=0 and cross-compiles on the build platform (no emulation needed).

ARG GO_VERSION=1.26

# ---- our binaries ----------------------------------------------------------------------------------------------
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS builder
ARG TARGETOS=linux
ARG TARGETARCH
# VERSION stamps pkg/version.Version; release versions select our image tags (see imagevector/).
ARG VERSION=v0.0.0-dev
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    set -eu; \
    ldflags="-s -w -X github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version.Version=${VERSION}"; \
    for cmd in gardener-extension-runtime-gvisor gvisor-installer; do \
      CGO_ENABLED=0 GOOS="$TARGETOS" GOARCH="$TARGETARCH" go build -trimpath -ldflags "$ldflags" -o "/out/$cmd" "./cmd/$cmd"; \
    done

# ---- the gVisor release, version pinned in GVISOR_VERSION ------------------------------------------------------
# Built from the Go module gvisor.dev/gvisor (the same build hack/tools/gvisor.sh tests): static runsc stamped with
# the version (else `runsc --version` says VERSION_MISSING; a cgo runsc cannot start sandboxes) and the shim
# renamed to containerd-shim-runsc-v1. gvisor-bin/ (sidecars) is built by gVisor's Bazel release only; this runsc
# falls back to its embedded copies, so the image carries none. SHA512SUMS lists every file; the installer
# refuses the release without it.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS gvisor
ARG TARGETARCH
COPY GVISOR_VERSION /GVISOR_VERSION
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    set -eu; \
    v="$(cat /GVISOR_VERSION)"; \
    CGO_ENABLED=0 GOOS=linux GOARCH="$TARGETARCH" go install -trimpath \
      -ldflags "-s -w -X gvisor.dev/gvisor/runsc/version.version=$v" \
      "gvisor.dev/gvisor/runsc@$v" "gvisor.dev/gvisor/shim@$v"; \
    bin="$(go env GOPATH)/bin"; \
    if [ -d "$bin/linux_$TARGETARCH" ]; then bin="$bin/linux_$TARGETARCH"; fi; \
    mkdir -p /opt/gvisor; \
    install -m 0755 "$bin/runsc" /opt/gvisor/runsc; \
    install -m 0755 "$bin/shim" /opt/gvisor/containerd-shim-runsc-v1; \
    cd /opt/gvisor && sha512sum runsc containerd-shim-runsc-v1 > SHA512SUMS

# ---- images ----------------------------------------------------------------------------------------------------
FROM gcr.io/distroless/static-debian12:nonroot AS gardener-extension-runtime-gvisor
COPY --from=builder /out/gardener-extension-runtime-gvisor /gardener-extension-runtime-gvisor
ENTRYPOINT ["/gardener-extension-runtime-gvisor"]

# Runs as root (the DaemonSet sets runAsUser 0): it writes root-owned files under the host mounts. Everything else
# is dropped by the DaemonSet's securityContext (read-only root filesystem, no privilege escalation).
FROM gcr.io/distroless/static-debian12 AS runtime-gvisor-installation
COPY --from=builder /out/gvisor-installer /gvisor-installer
COPY --from=gvisor /opt/gvisor /opt/gvisor
ENTRYPOINT ["/gvisor-installer"]
CMD ["install", "--host-root=/host", "--source=/opt/gvisor", "--restart=systemd"]
