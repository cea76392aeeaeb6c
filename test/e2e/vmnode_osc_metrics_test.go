// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/vmnode"
)

// refusedDialWait is how long a dial to the metric server from outside the shoot's networks is given: the kernel
// drops the SYN (no answer at all), so the dial ends only at this timeout; the kubelet's port, reached the same way,
// answers within it.
const refusedDialWait = 5 * time.Second

// vmShootNetworks gives the VM node test's shoot the networks of the VM node: its node network is the VM's own address
// and its pod network the VM's pods'. The seed reaches the VM through QEMU's user networking, whose connections
// arrive from HostIP, outside both: like a machine of the infrastructure network that is not the shoot's.
func vmShootNetworks(t *testing.T, shoot *e2e.Shoot) {
	t.Helper()
	s, err := shoot.GardenerShoot()
	testutil.Must(t, err)
	s.Spec.Networking = &gardencorev1beta1.Networking{Nodes: new(vmnode.GuestIP + "/32"), Pods: new(vmnode.PodSubnet)}
	shoot.Cluster.Spec.Shoot.Raw, err = json.Marshal(s)
	testutil.Must(t, err)
}

// metricServerOnlyForTheShoot checks the OSC mode's metric server unit on the node's real systemd: it serves the
// gVisor pod's sandbox metrics to the node itself, and its address restriction (the shoot's node and pod networks)
// makes the kernel drop a connection from outside the shoot, while the kubelet's port, forwarded the same way,
// answers.
func (o *oscModeNode) metricServerOnlyForTheShoot(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	restriction := o.run(ctx, t, "systemctl show -p IPAddressAllow -p IPAddressDeny --value "+oscwebhook.MetricServerUnitName)
	for _, want := range []string{vmnode.GuestIP + "/32", vmnode.PodSubnet, "127.0.0.0/8"} {
		if !strings.Contains(restriction, want) {
			t.Errorf("%s allows %q, want the node and the shoot's networks (%s)", oscwebhook.MetricServerUnitName, restriction, want)
		}
	}
	var scrape string
	err := e2e.Poll(ctx, o.vm.Bound(time.Minute), 2*time.Second, "the metric server answering the node with the gVisor pod's sandbox", func() error {
		out, err := o.vm.Run(ctx, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d
printf 'GET /metrics HTTP/1.0\r\nHost: node\r\n\r\n' >&3
cat <&3 | grep '^runsc_sandbox_memory_usage_bytes' || true`, render.MetricServerPort))
		if err != nil {
			return err
		}
		if scrape = out; !strings.Contains(out, `pod_name="`+app.Name+`"`) {
			return fmt.Errorf("no sandbox memory of pod %s: %q", app.Name, out)
		}
		return nil
	})
	testutil.Must(t, err)
	dial := func(port int) error {
		dctx, cancel := context.WithTimeout(ctx, refusedDialWait)
		defer cancel()
		conn, err := o.seed.Dial(dctx, "tcp", net.JoinHostPort(vmnode.GuestIP, strconv.Itoa(port)))
		if err == nil {
			_ = conn.SetDeadline(time.Now().Add(refusedDialWait))
			// QEMU accepts a forwarded connection before the guest does: what the guest answers tells.
			if _, err = fmt.Fprintf(conn, "GET /metrics HTTP/1.0\r\n\r\n"); err == nil {
				buf := make([]byte, 16)
				_, err = conn.Read(buf)
			}
			conn.Close()
		}
		return err
	}
	if err := dial(vmnode.KubeletPort); err != nil {
		t.Fatalf("the kubelet's port from outside the shoot's networks: %v (the forwarding does not work)", err)
	}
	if err := dial(render.MetricServerPort); err == nil {
		t.Errorf("the metric server answered a connection from outside the shoot's networks (%s allows %s)", oscwebhook.MetricServerUnitName, restriction)
	}
	t.Logf("metric server on the node: %s; from outside the shoot's networks: refused", strings.SplitN(scrape, "\n", 2)[0])
}
