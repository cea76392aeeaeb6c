// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"path"
	"strconv"
	"strings"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

const (
	// MetricServerUnitName runs the node's gVisor metric server's front in the OperatingSystemConfig mode with
	// sandbox metrics on (the DaemonSet mode's metric-server container): what the network reaches.
	MetricServerUnitName = "gvisor-metric-server.service"
	// MetricCollectorUnitName runs its collector (the metric-collector container): root, no network.
	MetricCollectorUnitName = "gvisor-metric-collector.service"
	// MetricServerBinary is their binary's file name in the binaryPath (an imageRef file of the installation image).
	MetricServerBinary = "gvisor-metric-server"
	// metricServerInImage is where the installation image carries it (pkg/images MetricServerPath).
	metricServerInImage = "/" + MetricServerBinary
)

// metricServerFile is the metric server binary from the pool's installation image.
func metricServerFile(binDir, image string) extensionsv1alpha1.File {
	return extensionsv1alpha1.File{
		Path:        path.Join(binDir, MetricServerBinary),
		Permissions: ptr.To[uint32](binaryPermissions),
		Content: extensionsv1alpha1.FileContent{ImageRef: &extensionsv1alpha1.FileContentImageRef{
			Image: image, FilePathInImage: metricServerInImage,
		}},
	}
}

// appendMetricServerUnits appends the metric server's collector and its front, answering the shoot's networks, to
// units.
func appendMetricServerUnits(units []extensionsv1alpha1.Unit, binDir string, shoot *gardencorev1beta1.Shoot) ([]extensionsv1alpha1.Unit, error) {
	peers, err := metricServerPeers(shoot)
	if err != nil {
		return nil, err
	}
	return append(units, metricCollectorUnit(binDir), metricServerUnit(binDir, peers)), nil
}

// metricCollectorUnit runs gvisor-metric-server's collector with the DaemonSet's container's runsc root and
// --metric-server, but without --per-pod: every pod of the shoot reaches the node's port, so it serves only the
// node's sums and names no pod or namespace. It runs as root, the owner of the sandboxes' state files and control
// sockets, and with nothing else (metricCollectorConfinement): no network at all, its one way out the socket in
// render.MetricCollectorDir that the front asks. That socket is open to the node's users (the front's user is
// systemd's dynamic one): what it answers is the node's sums, which the front gives every pod of the shoot anyway.
// Restart=always: a crash must not end the metrics for good; the sandboxes keep their registration, so the restarted
// collector serves them again. MemoryMax as the container's limit.
func metricCollectorUnit(binDir string) extensionsv1alpha1.Unit {
	bin := path.Join(binDir, MetricServerBinary)
	return longRunning{
		name:        MetricCollectorUnitName,
		description: "gVisor metric collector: metrics of the node's gVisor sandboxes (gardener-extension-runtime-gvisor)",
		after:       "containerd.service",
		execStart: bin + " --root=" + render.RunscRoot + " --metric-server=" + runscconfig.MetricServerAddress +
			" --listen=" + render.MetricCollectorSocket + " --socket-mode=0666",
		memoryMax: "128M",
		service:   metricCollectorConfinement(),
		binary:    bin,
	}.unit()
}

// metricServerUnit runs the metric server's front on the node's render.MetricServerPort (no pod here: the shoot's
// Prometheus reaches it through the API server's node proxy, /api/v1/nodes/<node>:9474/proxy/metrics): each scrape
// one call to the collector's socket. It starts after the collector (whose directory it binds) and stops with it. It
// runs as a user of its own and sees nothing of the node's /run but the collector's directory
// (metricFrontConfinement). It answers the node itself and peers (metricServerPeers) only: the
// kernel drops every other address's packets for the unit's sockets (systemd's IPAddressDeny/IPAddressAllow, cgroup
// BPF). node-agent restarts both units when their binary changes (FilePaths) and removes them with our other units
// and files when gVisor or sandbox metrics leave the pool.
func metricServerUnit(binDir string, peers []string) extensionsv1alpha1.Unit {
	bin := path.Join(binDir, MetricServerBinary)
	return longRunning{
		name:        MetricServerUnitName,
		description: "gVisor metric server: the node's gVisor sandbox metrics to the shoot's Prometheus (gardener-extension-runtime-gvisor)",
		after:       MetricCollectorUnitName,
		requires:    MetricCollectorUnitName,
		execStart:   bin + " --collector-socket=" + render.MetricCollectorSocket + " --listen=:" + strconv.Itoa(render.MetricServerPort),
		memoryMax:   "64M",
		service: append(metricFrontConfinement(),
			"IPAddressDeny=any",
			"IPAddressAllow="+strings.Join(append([]string{"localhost"}, peers...), " "),
		),
		binary: bin,
	}.unit()
}
