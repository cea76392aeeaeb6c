// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// Base is the kind of base an image is layered onto: distroless static, as root or as nonroot. Synthetic and the
// pinned distroless bases provide both.
type Base string

const (
	// BaseStatic is distroless static (root): the installer writes root-owned files under the host mounts.
	BaseStatic Base = "static"
	// BaseStaticNonroot is distroless static with the user nonroot (65532): the controller and the admission server.
	BaseStaticNonroot Base = "staticNonroot"
)

// Image defines one image: what it carries and its whole config. Nothing of the config comes from the base, so an
// image built on Synthetic has the config of the release image built on distroless.
type Image struct {
	// Name is the image's name in imagevector/images.yaml; its repository there names the pushed image.
	Name string
	// Base is the base layered under the image's own files.
	Base Base
	// Binaries are our commands, built from ./cmd/<Command> of the source tree to Path.
	Binaries []Binary
	// GVisorRelease is where the gVisor release directory goes (runsc, containerd-shim-runsc-v1, SHA512SUMS, optional
	// gvisor-bin/); empty: the image carries none.
	GVisorRelease string
	// Entrypoint, Cmd, User, Env and WorkingDir are the image config's.
	Entrypoint []string
	Cmd        []string
	User       string
	Env        []string
	WorkingDir string
	// Title is the image's org.opencontainers.image.title label; the version, source and revision labels are the
	// Builder's.
	Title string
}

// Binary is one of our commands in an image.
type Binary struct {
	// Command is the main package's directory below ./cmd, also the binary's name.
	Command string
	// Path is the absolute path in the image.
	Path string
	// Unversioned says that the command does not link pkg/version, so that the build cannot check its version stamp.
	Unversioned bool
	// OwnModule says that ./cmd/<Command> is a Go module of its own (its go.mod pins other dependency versions than
	// the main module's): it is built there, with the same checks, its version stamped into main.version.
	OwnModule bool
}

// Paths in the images that the charts and the installer rely on.
const (
	// ControllerPath is the controller binary (the extension chart's Deployment command).
	ControllerPath = "/gardener-extension-runtime-gvisor"
	// AdmissionPath is the admission webhook server (the admission runtime chart's Deployment command).
	AdmissionPath = "/gardener-extension-admission-runtime-gvisor"
	// InstallerPath is the node installer (the installation DaemonSet's init container command).
	InstallerPath = "/gvisor-installer"
	// IdlePath is the idle program next to the installer, where the installer execs it and the chart's idle
	// container and readiness probe run it.
	IdlePath = "/gvisor-idle"
	// MetricServerPath is the node's gVisor metric server in the installation image (the chart's metric-server
	// container command; the OperatingSystemConfig mode's imageRef file).
	MetricServerPath = "/gvisor-metric-server"
	// GPUCheckPath is the GPU pre-flight in the installation image: it judges a node's NVIDIA driver with the
	// shipped runsc's nvproxy (the installer runs it on GPU nodes; the OperatingSystemConfig mode's imageRef file).
	GPUCheckPath = "/gvisor-gpu-check"
	// GVisorReleasePath is the gVisor release in the installation image (the installer's --source).
	GVisorReleasePath = "/opt/gvisor"
)

// Source is the org.opencontainers.image.source label of every image.
const Source = "https://github.com/runtime-gvisor/gardener-extension-runtime-gvisor"

// env is distroless's environment (PATH, and SSL_CERT_FILE for its CA bundle), set explicitly so that it does not
// depend on the base. Synthetic carries no CA bundle: our binaries only talk to API servers whose CA they are given.
func env() []string {
	return []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
	}
}

// NonrootUser is distroless's nonroot user and group, which the charts' pods run as (runAsUser 65532).
const NonrootUser = "65532"

// Definitions returns the three images of this extension, the extension controller, the admission webhook server
// and the installation image, in that order. The configs are the ones the images had when a Dockerfile built them on
// distroless.
func Definitions() []Image {
	return []Image{
		{
			Name: imagevector.ImageNameExtension, Base: BaseStaticNonroot, Title: "gVisor extension controller",
			Binaries:   []Binary{{Command: "gardener-extension-runtime-gvisor", Path: ControllerPath}},
			Entrypoint: []string{ControllerPath},
			User:       NonrootUser, Env: env(), WorkingDir: "/home/nonroot",
		},
		{
			Name: imagevector.ImageNameAdmission, Base: BaseStaticNonroot, Title: "gVisor extension admission webhook server",
			Binaries:   []Binary{{Command: "gardener-extension-admission-runtime-gvisor", Path: AdmissionPath}},
			Entrypoint: []string{AdmissionPath},
			User:       NonrootUser, Env: env(), WorkingDir: "/home/nonroot",
		},
		{
			// Runs as root (the DaemonSet sets runAsUser 0): it writes root-owned files under the host mounts.
			// Everything else is dropped by the DaemonSet's securityContext. The idle program is the installer's
			// idle phase (it execs into it once done, so that every node pays the idle program's memory, not the installer's:
			// BENCHMARKS.md, "installation pod at idle") and the
			// readiness probe.
			Name: imagevector.ImageNameInstallation, Base: BaseStatic, Title: "gVisor node installer and gVisor release",
			Binaries: []Binary{
				{Command: "gvisor-installer", Path: InstallerPath},
				// Imports nothing but syscall (every byte of it is resident on every node), so no version either.
				{Command: "gvisor-idle", Path: IdlePath, Unversioned: true},
				// Sandbox metrics (the chart's metric-server container, the OperatingSystemConfig mode's unit): its own
				// module, built from the pinned gVisor module's packages.
				{Command: "gvisor-metric-server", Path: MetricServerPath, OwnModule: true},
				// The GPU pre-flight: its own module, built from the pinned gVisor module's nvproxy package.
				{Command: "gvisor-gpu-check", Path: GPUCheckPath, OwnModule: true},
			},
			GVisorRelease: GVisorReleasePath,
			Entrypoint:    []string{InstallerPath},
			Cmd:           []string{"install", "--host-root=/host", "--source=" + GVisorReleasePath, "--restart=systemd"},
			User:          "0", Env: env(), WorkingDir: "/",
		},
	}
}

// Definition returns the definition of the named image.
func Definition(name string) (Image, bool) {
	for _, d := range Definitions() {
		if d.Name == name {
			return d, true
		}
	}
	return Image{}, false
}
