// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	gardenerkubernetes "github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/go-logr/logr"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/shootprometheus"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// metricServerNode is the Node's name in the test's API server.
const metricServerNode = "gvisor-node-0"

// TestNodeAgentMetricServer is the OperatingSystemConfig mode's sandbox metrics on a real node, run by a real
// systemd and scraped as the shoot Prometheus scrapes it:
//   - the OSC is the webhook's for a landscape with sandbox metrics on; node-agent's code puts runsc into
//     containerd's config, its extractor takes the metric server's binary out of the installation image, and its
//     D-Bus code enables and starts gvisor-metric-server.service, the unit's bytes unchanged (no drop-in: the
//     systemd's mount namespace has the node's /run/containerd and bin dir at the node's paths);
//   - the unit's hardening is in effect in the running server (no capabilities, no new privileges, the memory
//     limit) and it still reads the sandboxes' state and answers a scrape;
//   - a real gVisor pod's sandbox appears in the scrape through a real kube-apiserver's node proxy, at the path
//     the nodes' ScrapeConfig (pkg/monitoring NodeScrapeConfig) gives the target, with the per-pod memory series the
//     recording rules read;
//   - a real Prometheus, configured by prometheus-operator's code from the OSC mode's monitoring objects, finds the
//     Node (Gardener's labels) by its node discovery and scrapes it the same way, and its recording rule gives the
//     pod's memory;
//   - killed, the server is restarted by systemd (Restart=always) and serves the same sandbox again: the sandboxes'
//     registration outlives the server.
func TestNodeAgentMetricServer(t *testing.T) {
	s := newSuite(t)
	osc := s.metrics.DeepCopy()
	n := s.appliedNode(t, osc)
	root := n.HostRoot()

	collectorUnit := oscUnit(t, osc, oscwebhook.MetricCollectorUnitName)
	frontUnit := oscUnit(t, osc, oscwebhook.MetricServerUnitName)
	binDir := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	ensureMountPoint(t, binDir)
	sd := startSystemd(t,
		mount{Source: filepath.Join(root, "run/containerd"), Target: "/run/containerd"},
		mount{Source: filepath.Join(root, binDir), Target: binDir})
	units := []string{collectorUnit.Name, frontUnit.Name}
	for _, u := range []extensionsv1alpha1.Unit{collectorUnit, frontUnit} {
		sd.writeUnit(t, u.Name, *u.Content)
	}
	t.Cleanup(func() {
		// Stopped before systemd dies, so that systemd removes the units' PrivateTmp directories from the machine.
		if out, err := sd.systemctl(context.Background(), append([]string{"stop"}, units...)...).CombinedOutput(); err != nil {
			t.Errorf("systemctl stop %s: %v: %s", units, err, out)
		}
	})
	if _, err := nodeAgentSystemd(t, sd, systemdRequest{Op: "apply", Units: units}); err != nil {
		t.Fatalf("node-agent starting %s: %v\n%s\n%s", units, err, sd.journal(t, units[0]), sd.journal(t, units[1]))
	}
	collector := assertConfined(t, sd, collectorUnit.Name, 128<<20, render.RunscRoot, render.MetricCollectorDir)
	front := assertConfined(t, sd, frontUnit.Name, 64<<20, render.MetricCollectorDir)
	for _, u := range units {
		assertExposure(t, filepath.Join(sd.unitDir, u))
	}
	assertNoNetwork(t, collectorUnit.Name, collector)
	frontUser := assertNotRoot(t, frontUnit.Name, front)

	cl := startCluster(t)
	cs := cl.cs
	pod, _ := n.GVisorPod(t, true) // host network: node-agent's config names the node's CNI dir, which the harness does not fill
	path := nodeMetricsPath(t, metricServerNode)
	memory := scrapeNode(t, cs, sd, frontUnit.Name, path, pod)
	t.Logf("through the node proxy %s: the node's gVisor sandboxes use %d bytes", path, int64(memory))
	checkNodesPrometheus(t, cl, memory)
	assertFrontCannotReachSandboxes(t, filepath.Join(root, strings.TrimPrefix(render.RunscRoot, "/")), pod.ID, frontUser)

	// Killed, either half is restarted by systemd and the node's scrape comes back: the sandboxes' registration
	// outlives both. The front is restarted with the collector it requires (it binds the collector's directory).
	if err := syscall.Kill(front, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	front = waitRestarted(t, sd, frontUnit.Name, front)
	scrapeNode(t, cs, sd, frontUnit.Name, path, pod)
	t.Logf("systemd restarted the killed front (now PID %d); the node's sandbox is served again", front)
	if err := syscall.Kill(collector, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	restarted := waitRestarted(t, sd, collectorUnit.Name, collector)
	scrapeNode(t, cs, sd, frontUnit.Name, path, pod)
	t.Logf("systemd restarted the killed collector (PID %d, now %d); the node's sandbox is served again", collector, restarted)
}

// assertNoNetwork: the unit's process has a network namespace of its own (systemd's PrivateNetwork: a loopback
// device alone), not the node's.
func assertNoNetwork(t testing.TB, unit string, pid int) {
	t.Helper()
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	its, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/dev", pid))
	if err != nil {
		t.Fatal(err)
	}
	var devices []string
	for _, l := range strings.Split(string(dev), "\n")[2:] {
		if name, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
			devices = append(devices, name)
		}
	}
	if its == own || len(devices) != 1 || devices[0] != "lo" {
		t.Errorf("%s's network namespace %s (the node's is %s) with devices %v: want its own, with lo alone", unit, its, own, devices)
	}
}

// assertNotRoot: the unit's process runs as a user and group other than root (every one of its IDs), with no
// supplementary group but its own; it returns the user.
func assertNotRoot(t testing.TB, unit string, pid int) int {
	t.Helper()
	status, err := execedStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	for _, l := range strings.Split(string(status), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && (k == "Uid" || k == "Gid" || k == "Groups") {
			ids[k] = strings.Fields(v)
		}
	}
	if len(ids["Uid"]) != 4 || len(ids["Gid"]) != 4 || slices.Contains(ids["Uid"], "0") || slices.Contains(ids["Gid"], "0") ||
		slices.ContainsFunc(ids["Groups"], func(g string) bool { return g != ids["Gid"][0] }) {
		t.Fatalf("%s's process runs as %v: want a user and group other than root, no supplementary group but its own", unit, ids)
	}
	uid, _ := strconv.Atoi(ids["Uid"][0])
	return uid
}

// assertFrontCannotReachSandboxes: as the front's user, even with the node's whole file system in view (which the
// front's unit does not have: assertConfined), the running sandbox's control socket refuses the connection, while
// root (the collector) connects.
func assertFrontCannotReachSandboxes(t testing.TB, runscRoot, sandboxID string, frontUser int) {
	t.Helper()
	socket := "runsc-" + sandboxID + ".sock"
	if err := testutil.DialAs(0, runscRoot, socket); err != nil {
		t.Fatalf("root cannot connect to the sandbox's control socket %s in %s: %v", socket, runscRoot, err)
	}
	if err := testutil.DialAs(frontUser, runscRoot, socket); !errors.Is(err, syscall.EACCES) {
		t.Errorf("the front's user %d connecting to the sandbox's control socket in %s: %v, want permission denied", frontUser, runscRoot, err)
	}
}

// oscUnit returns the OSC's unit name, or fails.
func oscUnit(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig, name string) extensionsv1alpha1.Unit {
	t.Helper()
	for _, u := range osc.Spec.Units {
		if u.Name == name && u.Content != nil {
			return u
		}
	}
	t.Fatalf("the OSC has no unit %s with content: %+v", name, osc.Spec.Units)
	return extensionsv1alpha1.Unit{}
}

// cluster is the seed and shoot of the test: a real control plane serving on 127.0.0.1:443 (kube-apiserver:443 to
// the shoot Prometheus, as in a shoot namespace), gardener-resource-manager, a shoot namespace with the OSC mode's
// monitoring objects, and the Node, with Gardener's labels, whose InternalIP is the machine's address on which the
// metric server listens (the node proxy refuses loopback addresses, as in a cluster).
type cluster struct {
	cp        *envtest.ControlPlane
	cs        *kubernetes.Clientset
	c         client.Client
	namespace string
}

func startCluster(t testing.TB) *cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := envtest.Start(ctx, envtest.Options{AssetsDir: realcomponents.KubebuilderAssets(t), APIServerPort: 443})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	rm, err := envtest.StartResourceManager(ctx, cp.Config, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rm.Stop() })
	cl := &cluster{cp: cp}
	if cl.cs, err = kubernetes.NewForConfig(cp.Config); err != nil {
		t.Fatal(err)
	}
	if cl.c, err = client.New(cp.Config, client.Options{Scheme: gardenerkubernetes.SeedScheme}); err != nil {
		t.Fatal(err)
	}
	shoot := gardenerfixtures.Shoot("osc", "metrics", "1.34.1", gardenerfixtures.Worker("gvisor", gardenerfixtures.GVisor(nil)))
	cl.namespace = gardenerfixtures.Namespace(shoot)
	if err := cl.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cl.namespace}}); err != nil {
		t.Fatal(err)
	}
	objs, err := monitoring.ShootObjects(cl.namespace, delivery.OperatingSystemConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := cl.c.Create(ctx, o); err != nil {
			t.Fatalf("the OSC mode's monitoring object %T %s: %v", o, o.GetName(), err)
		}
	}
	node := gardenerfixtures.Node(shoot, "gvisor", metricServerNode)
	if err := cl.c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: machineIP(t)}}
	if err := cl.c.Status().Update(ctx, node); err != nil {
		t.Fatal(err)
	}
	return cl
}

// checkNodesPrometheus runs a real Prometheus as the shoot's (test/shootprometheus: prometheus-operator's config of
// the OSC mode's ScrapeConfigs and PrometheusRule) in the machine's network: its node discovery finds the Node
// through kube-apiserver:443, the nodes' ScrapeConfig sends the scrape through the node proxy to the systemd unit,
// and the recording rule gives the pod's memory as the sandbox reports it (memory, scraped a moment before).
func checkNodesPrometheus(t testing.TB, cl *cluster, memory float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prom, config := realcomponents.Prometheus(t)
	dialer := &net.Dialer{}
	env := shootprometheus.Env{
		Client: cl.c, Dial: dialer.DialContext, APIServerIP: "127.0.0.1", ListenAddress: "127.0.0.1:" + strconv.Itoa(testutil.FreePort(t)),
		Command: func(ctx context.Context, argv ...string) *exec.Cmd {
			return exec.CommandContext(ctx, argv[0], argv[1:]...)
		},
	}
	p, err := shootprometheus.Start(ctx, env, shootprometheus.Tools{Prometheus: prom, Config: config}, cl.namespace, t.TempDir(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("--- Prometheus ---\n%s", p.Log())
		}
	})
	want := "https://kube-apiserver:443" + nodeMetricsPath(t, metricServerNode)
	query := fmt.Sprintf(`node:gvisor_sandbox_memory_usage_bytes:sum{node=%q}`, metricServerNode)
	var got []shootprometheus.Sample
	deadline := time.Now().Add(time.Minute)
	for {
		targets, err := p.Targets()
		var up bool
		for _, tg := range targets {
			if tg.ScrapeURL == want && tg.Health == "up" && tg.Labels["node"] == metricServerNode && tg.Labels["pool"] == "gvisor" && tg.Labels["job"] == monitoring.ScrapeJob {
				up = true
			}
		}
		if up {
			if got, err = p.Query(query); err == nil && len(got) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("within a minute: target %s up with node and pool labels: %v; %s: %+v (%v); targets: %+v", want, up, query, got, err, targets)
		}
		time.Sleep(time.Second)
	}
	if diff := got[0].Float() - memory; diff > 1<<20 || diff < -(1<<20) {
		t.Errorf("the recording rule says %.0f bytes, the node's server said %.0f a moment before: more than 1 MiB apart", got[0].Float(), memory)
	}
	t.Logf("a real Prometheus (node discovery, node proxy) records the node's gVisor memory: %.0f bytes (scraped directly: %.0f)", got[0].Float(), memory)
}

// machineIP is the machine's first non-loopback IPv4 address (where a server listening on :port is reachable).
func machineIP(t testing.TB) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && ipn.IP.IsGlobalUnicast() {
			return ipn.IP.String()
		}
	}
	t.Fatalf("the machine has no non-loopback IPv4 address for the node proxy: %v", addrs)
	return ""
}

// nodeMetricsPath is the metrics path the nodes' ScrapeConfig gives node's target: its __metrics_path__
// relabeling applied as Prometheus applies a replace (the regex anchored, the replacement expanded).
func nodeMetricsPath(t testing.TB, node string) string {
	t.Helper()
	for _, rc := range monitoring.NodeScrapeConfig("shoot--test--gvisor").Spec.RelabelConfigs {
		if rc.TargetLabel != "__metrics_path__" || rc.Replacement == nil {
			continue
		}
		re := regexp.MustCompile("^(?:" + rc.Regex + ")$")
		m := re.FindStringSubmatchIndex(node)
		if m == nil {
			t.Fatalf("the ScrapeConfig's __metrics_path__ regex %q does not match the node name %q", rc.Regex, node)
		}
		return string(re.ExpandString(nil, *rc.Replacement, node, m))
	}
	t.Fatal("the nodes' ScrapeConfig sets no __metrics_path__")
	return ""
}

// scrapeSandbox scrapes path through the API server until the sandbox's memory series is there (bounded) and
// returns its value.
func scrapeNode(t testing.TB, cs *kubernetes.Clientset, sd *systemd, unit, path string, pod *nodetest.Pod) float64 {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		raw, err := cs.CoreV1().RESTClient().Get().AbsPath(path).DoRaw(ctx)
		cancel()
		var last string
		if err == nil {
			v, found, perr := nodeMemory(raw)
			switch {
			case perr != nil:
				t.Fatalf("the scrape through %s does not parse: %v\n%s", path, perr, raw)
			case bytes.Contains(raw, []byte("pod_name=")) || bytes.Contains(raw, []byte(pod.ID)) || bytes.Contains(raw, []byte(`="`+pod.Config.Metadata.Name+`"`)):
				t.Fatalf("the OSC mode's metric server names the pod (it serves every pod of the shoot):\n%s", raw)
			case found && v > 0:
				return v
			}
			last = string(raw)
		} else {
			last = fmt.Sprintf("%v: %s", err, raw)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no runsc_node_sandbox_memory_usage_bytes above 0 through %s within a minute; last answer:\n%s\n%s", path, last, sd.journal(t, unit))
		}
		time.Sleep(time.Second)
	}
}

// nodeMemory parses a scrape and returns the node's runsc_node_sandbox_memory_usage_bytes.
func nodeMemory(raw []byte) (float64, bool, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return 0, false, err
	}
	f, ok := families["runsc_node_sandbox_memory_usage_bytes"]
	if !ok || len(f.GetMetric()) != 1 {
		return 0, false, nil
	}
	m := f.GetMetric()[0]
	if g := m.GetGauge(); g != nil {
		return g.GetValue(), true, nil
	}
	return m.GetUntyped().GetValue(), true, nil
}

// hostPID maps a PID of systemd's PID namespace to the test's (the NSpid line of the processes' status).
func (s *systemd) hostPID(t testing.TB, inner string) int {
	t.Helper()
	files, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, f := range files {
		status, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			fields := strings.Fields(strings.TrimPrefix(line, "NSpid:"))
			if !strings.HasPrefix(line, "NSpid:") || len(fields) < 2 || fields[len(fields)-1] != inner {
				continue
			}
			pid, _ := strconv.Atoi(fields[0])
			if ppidIn(pid, s.pid) {
				return pid
			}
		}
	}
	t.Fatalf("no process with PID %s in the test's systemd", inner)
	return 0
}

// ppidIn reports whether ancestor is pid or one of its ancestors.
func ppidIn(pid, ancestor int) bool {
	for pid > 1 {
		if pid == ancestor {
			return true
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// The fields after the command (in parentheses, which may hold spaces): state, then the parent's PID.
		rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return false
}

// journal is the unit's status for a failure message (this systemd has no journal; systemctl status shows the
// state and the last exit).
func (s *systemd) journal(t testing.TB, unit string) string {
	t.Helper()
	out, _ := s.systemctl(context.Background(), "status", "--no-pager", unit).CombinedOutput()
	return string(out)
}
