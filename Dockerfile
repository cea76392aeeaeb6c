# syntax=docker/dockerfile:1
# Images of gardener-extension-runtime-gvisor, for linux/amd64 and linux/arm64 (`make docker-images`):
#   --target gardener-extension-runtime-gvisor   the extension controller (static, distroless, nonroot)
#   --target runtime-gvisor-installation         the node installer plus the gVisor release for TARGETARCH
#   --target gardener-extension-admission-runtime-gvisor   the admission webhook server for the garden (static, distroless, nonroot)
# Every Go build is CGO_ENABLED=0 and cross-compiles on the build platform (no emulation needed).

# GO_VERSION is exact (patch level): the gVisor release must be byte-for-byte the build hack/gvisor-sums.sh recorded
# in imagevector/gvisor-sums.yaml (Go builds are reproducible only for the same toolchain); that script refuses
# another toolchain.
ARG GO_VERSION=1.26.8
# Base images, one ARG each, so that the release step pins them to digests (hack/pin-base-images.sh rewrites these
# defaults to <image>@sha256:<digest>, resolved from the registry at release time; review and commit the diff). A
# tag alone can be moved by whoever controls the registry; a digest names exactly one image. `make docker-images`
# with unpinned defaults is for development builds.
ARG GOLANG_IMAGE=golang:${GO_VERSION}
ARG DISTROLESS_STATIC_NONROOT_IMAGE=gcr.io/distroless/static-debian12:nonroot
ARG DISTROLESS_STATIC_IMAGE=gcr.io/distroless/static-debian12

# ---- our binaries ----------------------------------------------------------------------------------------------
# TARGETOS/TARGETARCH are declared WITHOUT defaults: a default would shadow the value buildx injects per platform
# (docker/buildx#510) and every variant would get the same architecture, the field bug "pods not ready on amd64".
FROM --platform=$BUILDPLATFORM ${GOLANG_IMAGE} AS builder
ARG TARGETOS
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
    for cmd in gardener-extension-runtime-gvisor gardener-extension-admission-runtime-gvisor gvisor-installer gvisor-idle; do \
      CGO_ENABLED=0 GOOS="$TARGETOS" GOARCH="$TARGETARCH" go build -trimpath -ldflags "$ldflags" -o "/out/$cmd" "./cmd/$cmd"; \
      go version -m "/out/$cmd" | grep -q "GOARCH=${TARGETARCH}\$" || { echo "$cmd is not built for $TARGETARCH" >&2; exit 1; }; \
    done

# ---- the gVisor release, version pinned in GVISOR_VERSION ------------------------------------------------------
# hack/tools/gvisor-release.sh (the same build hack/tools/gvisor.sh gives the tests) cross-compiles static runsc and
# containerd-shim-runsc-v1 for TARGETARCH from the Go module gvisor.dev/gvisor, fails unless their build info says
# GOARCH=$TARGETARCH and CGO_ENABLED=0, and writes SHA512SUMS (the installer refuses a release without it and checks
# every binary's ELF machine against the node again). gvisor-bin/ (sidecars) is built by gVisor's Bazel release
# only; this runsc falls back to its embedded copies, so the image carries none.
FROM --platform=$BUILDPLATFORM ${GOLANG_IMAGE} AS gvisor
ARG TARGETARCH
COPY GVISOR_VERSION /src/GVISOR_VERSION
COPY hack/tools/gvisor-release.sh /src/gvisor-release.sh
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GVISOR_VERSION_FILE=/src/GVISOR_VERSION /src/gvisor-release.sh "$TARGETARCH" /opt/gvisor

# ---- images ----------------------------------------------------------------------------------------------------
FROM ${DISTROLESS_STATIC_NONROOT_IMAGE} AS gardener-extension-runtime-gvisor
COPY --from=builder /out/gardener-extension-runtime-gvisor /gardener-extension-runtime-gvisor
ENTRYPOINT ["/gardener-extension-runtime-gvisor"]

# The admission webhook server (charts/gardener-extension-admission-runtime-gvisor/charts/runtime runs it as 65532).
FROM ${DISTROLESS_STATIC_NONROOT_IMAGE} AS gardener-extension-admission-runtime-gvisor
COPY --from=builder /out/gardener-extension-admission-runtime-gvisor /gardener-extension-admission-runtime-gvisor
ENTRYPOINT ["/gardener-extension-admission-runtime-gvisor"]

# Runs as root (the DaemonSet sets runAsUser 0): it writes root-owned files under the host mounts. Everything else
# is dropped by the DaemonSet's securityContext (read-only root filesystem, no privilege escalation).
FROM ${DISTROLESS_STATIC_IMAGE} AS runtime-gvisor-installation
COPY --from=builder /out/gvisor-installer /gvisor-installer
# The idle phase: the installer execs into it once done (about 1.7 MB RSS on every node instead of 15 MB), and the
# readiness probe runs it.
COPY --from=builder /out/gvisor-idle /gvisor-idle
COPY --from=gvisor /opt/gvisor /opt/gvisor
ENTRYPOINT ["/gvisor-installer"]
CMD ["install", "--host-root=/host", "--source=/opt/gvisor", "--restart=systemd"]
