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
	// MetricServerUnitName runs the node's gVisor metric server in the OperatingSystemConfig mode with sandbox
	// metrics on (the DaemonSet mode's metric-server container).
	MetricServerUnitName = "gvisor-metric-server.service"
	// MetricServerBinary is its binary's file name in the binaryPath (an imageRef file of the installation image).
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

// appendMetricServerUnit appends the metric server's unit, answering the shoot's networks, to units.
func appendMetricServerUnit(units []extensionsv1alpha1.Unit, binDir string, shoot *gardencorev1beta1.Shoot) ([]extensionsv1alpha1.Unit, error) {
	peers, err := metricServerPeers(shoot)
	if err != nil {
		return nil, err
	}
	return append(units, metricServerUnit(binDir, peers)), nil
}

// metricServerUnit runs gvisor-metric-server on the node with the DaemonSet's container's runsc root and
// --metric-server, but without --per-pod: every pod of the shoot reaches the node's port, so it serves only the
// node's sums and names no pod or namespace. It listens on the node's render.MetricServerPort (no pod here: the shoot's Prometheus
// reaches it through the API server's node proxy, /api/v1/nodes/<node>:9474/proxy/metrics). node-agent restarts it
// when its binary changes (FilePaths) and removes it with our other units and files when gVisor or sandbox metrics
// leave the pool. Restart=always: a crash must not end the metrics for good; the sandboxes keep their registration,
// so the restarted server serves them again. MemoryMax as the container's limit. It answers the node itself and
// peers (metricServerPeers) only: the kernel drops every other address's packets for the unit's sockets (systemd's
// IPAddressDeny/IPAddressAllow, cgroup BPF).
//
// It runs as root, the owner of the sandboxes' control sockets, and with nothing else (metricServerConfinement).
func metricServerUnit(binDir string, peers []string) extensionsv1alpha1.Unit {
	bin := path.Join(binDir, MetricServerBinary)
	return longRunning{
		name:        MetricServerUnitName,
		description: "gVisor metric server: metrics of the node's gVisor sandboxes (gardener-extension-runtime-gvisor)",
		after:       "containerd.service",
		execStart: bin + " --root=" + render.RunscRoot + " --metric-server=" + runscconfig.MetricServerAddress +
			" --listen=:" + strconv.Itoa(render.MetricServerPort),
		memoryMax: "128M",
		service: append(metricServerConfinement(),
			"IPAddressDeny=any",
			"IPAddressAllow="+strings.Join(append([]string{"localhost"}, peers...), " "),
		),
		binary: bin,
	}.unit()
}
