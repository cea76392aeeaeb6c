// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

// metricServerOnlyForTheShoot checks the OSC mode's metric server unit on the node's real systemd: every pod of
// the shoot reaches it on the node's port, so it serves the node's sums and names no pod: the node itself and a
// tenant's pod in another namespace read the node's gVisor memory and sandbox count, and neither the shoot owner's
// pod nor its namespace. Its address restriction (the shoot's node and pod networks) makes the kernel drop a
// connection from outside the shoot, while the kubelet's port, forwarded the same way, answers.
func (o *oscModeNode) metricServerOnlyForTheShoot(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	// systemd's own rating of both units as the node runs them (BENCHMARKS.md), and the collector's one network
	// namespace device: it listens on its socket alone.
	for _, unit := range []string{oscwebhook.MetricCollectorUnitName, oscwebhook.MetricServerUnitName} {
		out, err := o.vm.Run(ctx, "systemd-analyze security --no-pager --threshold=20 "+unit+" | tail -1")
		if err != nil {
			t.Errorf("systemd-analyze security %s on the node: %v (above 2.0):\n%s", unit, err, out)
		}
		t.Logf("on the node: %s", strings.TrimSpace(out))
	}
	if devices := o.run(ctx, t, "awk -F: 'NR>2 {print $1}' /proc/$(systemctl show -p MainPID --value "+oscwebhook.MetricCollectorUnitName+")/net/dev"); strings.Join(strings.Fields(devices), " ") != "lo" {
		t.Errorf("%s's network devices: %q, want lo alone", oscwebhook.MetricCollectorUnitName, devices)
	}
	restriction := o.run(ctx, t, "systemctl show -p IPAddressAllow -p IPAddressDeny --value "+oscwebhook.MetricServerUnitName)
	for _, want := range []string{vmnode.GuestIP + "/32", vmnode.PodSubnet, "127.0.0.0/8"} {
		if !strings.Contains(restriction, want) {
			t.Errorf("%s allows %q, want the node and the shoot's networks (%s)", oscwebhook.MetricServerUnitName, restriction, want)
		}
	}
	var scrape string
	err := e2e.Poll(ctx, o.vm.Bound(time.Minute), 2*time.Second, "the metric server answering the node with the gVisor pod's sandbox in its sums", func() error {
		out, err := o.vm.Run(ctx, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d
printf 'GET /metrics HTTP/1.0\r\nHost: node\r\n\r\n' >&3
cat <&3 | grep '^runsc_' || true`, render.MetricServerPort))
		if err != nil {
			return err
		}
		scrape = out
		if !strings.Contains(out, "runsc_node_sandbox_memory_usage_bytes ") || strings.Contains(out, "runsc_node_sandbox_memory_usage_bytes 0") {
			return fmt.Errorf("no gVisor memory of the node's sandboxes: %q", out)
		}
		return nil
	})
	testutil.Must(t, err)
	for _, leak := range []string{"pod_name=", "namespace_name=", `="` + app.Name + `"`, `="` + app.Namespace + `"`} {
		if strings.Contains(scrape, leak) {
			t.Errorf("the OSC mode's metric server names %q to whoever reaches the node's port:\n%s", leak, scrape)
		}
	}
	o.tenantReadsOnlySums(ctx, t, app)
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

// tenantReadWait is how long the tenant's read of the metric server waits for its answer: past the server's
// ScrapeBudget (8 s), which bounds every scrape whatever the sandboxes do.
const tenantReadWait = 15 * time.Second

// tenantReadsOnlySums runs a pod of another tenant (its own namespace, a gVisor pod like the shoot owner's) on the
// node that reads the node's metric server every few seconds: it is answered (the node's port is open to the shoot's
// pods: what closes the server is what it says), with the node's sums at least once, and no answer names the shoot
// owner's pod or namespace. Under the emulated node's load a scrape may find every sandbox too slow to answer (then
// it has the node's counts without the sums).
func (o *oscModeNode) tenantReadsOnlySums(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	c := o.seed.Client()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-b"}}
	testutil.Must(t, c.Create(ctx, ns))
	tenant := e2e.ShootOwnerPod(ns.Name, "tenant-gvisor", new("gvisor"))
	tenant.Spec.NodeName = vmNodeName
	// busybox's nc, waiting for the answer as long as a scrape may take (the server answers within ScrapeBudget,
	// 8 s, whatever the sandboxes do), its input held open meanwhile: a client that half-closes its connection is
	// one that left, for which the server asks no sandbox. "leaked" if the answer names the owner's pod or
	// namespace, "answered" with "sums" or "counts" if it is the node's series, otherwise "nothing:" and the
	// answer's first bytes.
	tenant.Spec.Containers[0].Command = []string{"sh", "-c", fmt.Sprintf(`while true; do
r=$( (printf 'GET /metrics HTTP/1.0\r\n\r\n'; sleep %[1]d) | nc -w %[1]d %s %d 2>&1)
if echo "$r" | grep -q -e 'pod_name=' -e 'namespace_name=' -e '="%s"' -e '="%s"'; then echo leaked
elif echo "$r" | grep -q '^runsc_node_sandboxes'; then echo answered-sums
elif echo "$r" | grep -q '^runsc_num_sandboxes_running'; then echo answered-counts
else echo "nothing:$(echo "$r" | head -c 120 | tr -s '\r\n\t ' '____')"; fi
sleep 5; done`, tenantReadWait/time.Second, vmnode.GuestIP, render.MetricServerPort, app.Name, app.Namespace)}
	defer func() {
		for _, obj := range []client.Object{tenant, ns} {
			_ = c.Delete(context.Background(), obj)
		}
	}()
	_, err := e2e.RunPod(ctx, o.seed, tenant, "answered", o.vm.Bound(5*time.Minute))
	testutil.Must(t, err)
	cs, err := kubernetes.NewForConfig(o.seed.RESTConfig())
	testutil.Must(t, err)
	var reads []string
	// Three reads, each within tenantReadWait and 5 s apart.
	err = e2e.Poll(ctx, o.vm.Bound(3*(tenantReadWait+5*time.Second)+time.Minute), 2*time.Second, "the tenant's reads of the node's metric server", func() error {
		log, err := cs.CoreV1().Pods(tenant.Namespace).GetLogs(tenant.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			return err
		}
		reads = strings.Fields(string(log))
		if slices.Contains(reads, "leaked") {
			return nil // judged below
		}
		if last := reads[max(0, len(reads)-3):]; len(last) < 3 || slices.ContainsFunc(last, func(l string) bool { return !strings.HasPrefix(l, "answered") }) {
			return fmt.Errorf("%s/%s's last reads: %v, want the node's series", tenant.Namespace, tenant.Name, last)
		}
		if !slices.Contains(reads, "answered-sums") {
			return fmt.Errorf("%s/%s's reads: %v, want the node's sums at least once", tenant.Namespace, tenant.Name, reads)
		}
		return nil
	})
	testutil.Must(t, err)
	if slices.Contains(reads, "leaked") {
		t.Fatalf("a tenant's pod read the shoot owner's pod or namespace from the node's metric server: %v", reads)
	}
	sums := 0
	for _, r := range reads {
		if r == "answered-sums" {
			sums++
		}
	}
	t.Logf("a tenant's gVisor pod in %s read the node's metric server %d times: never a pod or namespace; %d answers with the node's sums, the others with its counts only", ns.Name, len(reads), sums)
}
