// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/vmnode"
)

// vmNodeName is the VM node's Node name.
const vmNodeName = "shoot--foo--bar-worker-gvisor-z1-vm"

// usageSampleWait bounds the wait for a new pod's usage in the kubelet's stats: cAdvisor samples a new pod slice
// every 10-15 s (dynamic housekeeping), and metrics-server scrapes every 15-60 s; on the emulated VM a few
// housekeeping rounds may pass before one lands.
const usageSampleWait = 2 * time.Minute

// gardenersNode is a shoot's worker as Gardener runs it (test/vmnode): a VM with systemd as PID 1, cgroup v2, the
// systemd cgroup driver, joined as a second node to the cluster of a namespace node (test/kubenode), which is the
// seed: the extension's controller runs there, the VM node carries the gVisor pool's labels.
type gardenersNode struct {
	seed  *kubenode.Node
	vm    *vmnode.Node
	shoot *e2e.Shoot
	// pristine is containerd's config.toml as the node came (sha256sum's line), before the extension.
	pristine string
	// imgs are this tree's images, which the seed runs.
	imgs *images.Built
	// cgroupV1: the VM runs systemd's legacy hierarchy (cgroup v1), as SUSE CHost; false: cgroup v2.
	cgroupV1 bool
}

// onGardenersNode starts the seed, boots the VM node, installs the extension chart with this tree's images, writes
// the shoot and its gVisor pool's ContainerRuntime as gardenlet does, and joins the VM's kubelet.
func onGardenersNode(ctx context.Context, t *testing.T, cgroupV1 bool, containerd string, extraImages ...string) *gardenersNode {
	t.Helper()
	s := startVMSeed(ctx, t)
	imgs, shoot, seed := s.imgs, s.shoot, s.seed
	helm := realcomponents.Helm(t)
	disk, crictl := realcomponents.VMNode(t), realcomponents.Crictl(t)
	nodeContainerd := installertest.Release(t, containerd)
	// The VM boots and gets containerd while the seed gets the extension (each takes a minute or more).
	nodeImgs := nodetest.BuildImages(t, nodetest.NodeTools(t))
	booted := bootInBackground(ctx, vmnode.Config{
		Disk: disk, Network: seed, Forward: []int{vmnode.KubeletPort}, ForwardAddress: vmnode.GuestIP, Log: vmnode.TestLog(t),
		CgroupV1: cgroupV1,
	}, vmnode.Provision{
		Containerd: nodeContainerd.Dir, Crictl: crictl, SandboxImage: nodetest.PauseImage,
		Images: append([]string{nodeImgs.Pause, nodeImgs.Busybox, imgs.Installation().Archive}, extraImages...),
	})
	// With the readiness gate: the installer labels the node once it proved a sandbox there, and the RuntimeClass
	// selects the label.
	// With sandbox metrics: the node's metric server runs beside the installer.
	startExtensionFrom(ctx, t, seed, helm, thisChart, imgs, vmControllerValues)
	vm, err := booted()
	testutil.Must(t, err)
	g := &gardenersNode{seed: seed, vm: vm, shoot: shoot, imgs: imgs, cgroupV1: cgroupV1}
	t.Cleanup(func() {
		if t.Failed() {
			installer, _ := vm.Run(context.Background(), "for id in $(crictl ps -a -q --name installer | head -2); do crictl logs --tail 15 $id 2>&1; done")
			t.Logf("--- VM node: kubelet ---\n%s\n--- VM node: containerd ---\n%s\n--- VM node: the last installers ---\n%s\n--- VM node: console ---\n%s",
				vm.Journal(context.Background(), "kubelet", 40), vm.Journal(context.Background(), "containerd", 30), installer, vm.Console(20))
		}
		testutil.Must(t, vm.Stop())
	})
	g.pristine = g.run(ctx, t, "sha256sum /etc/containerd/config.toml")
	testutil.Must(t, shoot.Create(ctx, seed))
	testutil.Must(t, shoot.CreateContainerRuntime(ctx, seed))
	kubeconfig, err := seed.Kubeconfig("vm-kubelet", "system:node:"+vmNodeName, "system:nodes")
	testutil.Must(t, err)
	testutil.Must(t, vm.JoinCluster(ctx, vmnode.Join{
		Kubelet: s.kubelet, Kubeconfig: kubeconfig, NodeName: vmNodeName,
		Labels: shoot.NodeLabels(), ServiceIP: kubenode.KubernetesServiceIP,
	}))
	g.waitNodeReady(ctx, t)
	return g
}

// vmSeed is the seed of the VM node tests: a namespace node (containerd 2.4, this tree's images imported) whose
// loopback leads to the VM's InternalIP, and the shoot of example/.
type vmSeed struct {
	seed  *kubenode.Node
	imgs  *images.Built
	shoot *e2e.Shoot
	// containerd is the seed's release; kubelet the kubelet's binary of its control plane, which the VM runs too.
	containerd installertest.Containerd
	kubelet    string
}

// startVMSeed starts the seed of a VM node test.
func startVMSeed(ctx context.Context, t *testing.T) vmSeed {
	t.Helper()
	s := vmSeed{imgs: ourImages(t), containerd: installertest.Release(t, "2.4")}
	var err error
	s.shoot, err = e2e.LoadShoot("../../example/seed/cluster.yaml", "../../example/containerruntime.yaml", kubernetesVersion)
	testutil.Must(t, err)
	cfg := kubenode.EnvConfig(t, s.containerd)
	cfg.NodeName, cfg.Images = "seed", archives(s.imgs)
	s.kubelet = filepath.Join(cfg.Assets, "kubelet")
	s.seed = kubenode.New(t, cfg)
	routeToGuest(ctx, t, s.seed)
	return s
}

// bootInBackground boots a VM node with cfg and provisions it with p while the caller goes on; the function it
// returns waits for the node (stopped again if provisioning failed).
func bootInBackground(ctx context.Context, cfg vmnode.Config, p vmnode.Provision) func() (*vmnode.Node, error) {
	type booted struct {
		vm  *vmnode.Node
		err error
	}
	c := make(chan booted, 1)
	go func() {
		vm, err := vmnode.Boot(ctx, cfg)
		if err == nil {
			if err = vm.Provision(ctx, p); err != nil {
				err = errors.Join(err, vm.Stop())
			}
		}
		c <- booted{vm, err}
	}()
	return func() (*vmnode.Node, error) {
		b := <-c
		return b.vm, b.err
	}
}

// vmControllerValues are the controller's chart values of the VM node's DaemonSet tests: the readiness gate and
// sandbox metrics on.
var vmControllerValues = map[string]any{"readinessGate": true, "sandboxMetrics": true}

// routeToGuest puts the VM's InternalIP on the seed's loopback, where QEMU forwards it to the VM's kubelet: the API
// server's way to it (logs, exec). Its local route prefers 127.0.0.1 as the source: QEMU's user-mode network hands
// a connection from a loopback address to the guest as coming from 10.0.2.2, but one from 10.0.2.15 as coming from
// the guest's own address, which the guest drops.
func routeToGuest(ctx context.Context, t *testing.T, seed *kubenode.Node) {
	t.Helper()
	for _, argv := range [][]string{
		{"ip", "addr", "add", vmnode.GuestIP + "/32", "dev", "lo"},
		{"ip", "route", "replace", "local", vmnode.GuestIP, "dev", "lo", "table", "local", "scope", "host", "src", "127.0.0.1"},
	} {
		if out, err := seed.NetCommand(ctx, argv...).CombinedOutput(); err != nil {
			t.Fatalf("%s in the seed's network: %v: %s", strings.Join(argv, " "), err, out)
		}
	}
}

// waitNodeReady waits until the VM's Node is Ready.
func (g *gardenersNode) waitNodeReady(ctx context.Context, t *testing.T) {
	t.Helper()
	t0 := time.Now()
	err := e2e.Poll(ctx, g.vm.Bound(5*time.Minute), time.Second, "Node "+vmNodeName+" Ready", func() error {
		var node corev1.Node
		if err := g.seed.Client().Get(ctx, client.ObjectKey{Name: vmNodeName}, &node); err != nil {
			return err
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %v", node.Status.Conditions)
	})
	testutil.Must(t, err)
	t.Logf("Node %s Ready after %.1fs", vmNodeName, time.Since(t0).Seconds())
}

// run runs script on the VM node and fails the test when it fails.
func (g *gardenersNode) run(ctx context.Context, t *testing.T, script string) string {
	t.Helper()
	out, err := g.vm.Run(ctx, script)
	testutil.Must(t, err)
	return strings.TrimSpace(out)
}

// gvisorPodOnVM is a shoot owner's gVisor pod on the VM node with a memory limit (its pod slice's limit under the
// systemd driver).
func gvisorPodOnVM(name string) *corev1.Pod {
	p := e2e.ShootOwnerPod("default", name, new("gvisor"))
	p.Spec.NodeName = vmNodeName
	p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi"), corev1.ResourceCPU: resource.MustParse("200m")},
	}
	return p
}

// TestExtensionOnGardenersNode runs the extension as it ships on a node like Gardener's (systemd PID 1, the systemd
// cgroup driver; test/vmnode), on cgroup v2 (Garden Linux) and cgroup v1 (SUSE CHost), DaemonSet mode: the chart,
// this tree's images, the controller and gardener-resource-manager, a ContainerRuntime as gardenlet writes it. The
// installation pod, run by the node's kubelet, restarts containerd through the node's real systemd, proves a
// sandbox under the systemd driver and labels the node for the readiness gate; the health conditions turn True; a shoot owner's gVisor pod runs inside its pod
// slice, its usage is what the kubelet reports, and it is OOM-killed by the kernel when it exceeds its memory limit;
// the node reboots and gVisor pods run again without a reinstall; a release that cannot start a sandbox is named on
// EveryNodeReady while the node falls back to its last proven one; deleting the ContainerRuntime gives containerd
// back its config byte for byte. On cgroup v1 with the systemd driver (SUSE CHost) runsc would put a gVisor pod
// outside its pod's slice (package cgroups): there the installer refuses, by name, and leaves the node untouched
// and unlabelled.
func TestExtensionOnGardenersNode(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cgroupV1   bool
		containerd string
	}{{"cgroup-v2", false, "2.4"}, {"cgroup-v1", true, "2.4"}, {"cgroup-v2-containerd-1.7", false, "1.7"}} {
		t.Run(tc.name, func(t *testing.T) {
			// The cgroup v2 case took about 20 minutes alone on the VM phase (its reboot, the broken release, the
			// uninstall); its steps' bounds grow with the guest's pace.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			t0 := time.Now()
			if tc.cgroupV1 {
				onGardenersNode(ctx, t, true, tc.containerd).refused(ctx, t)
				return
			}
			if tc.containerd != "2.4" {
				// Another containerd release (config version 2: runsc is registered in config.toml itself): the
				// install through systemd, a gVisor pod in its slice with its usage seen, the uninstall.
				g := onGardenersNode(ctx, t, false, tc.containerd)
				g.install(ctx, t)
				app := g.firstGVisorPod(ctx, t, t0)
				g.inItsPodSlice(ctx, t, app)
				g.usageSeen(ctx, t, app)
				g.uninstall(ctx, t, app)
				return
			}
			broken := brokenImages(t)
			g := onGardenersNode(ctx, t, false, tc.containerd, broken.Installation().Archive)
			g.install(ctx, t)
			app := g.firstGVisorPod(ctx, t, t0)
			g.inItsPodSlice(ctx, t, app)
			g.usageSeen(ctx, t, app)
			g.sandboxMetricsWithinSlice(ctx, t)
			g.tenantsRefused(ctx, t)
			g.memoryLimitHolds(ctx, t)
			g.cpuLimitHolds(ctx, t)
			g.reboot(ctx, t, app)
			g.brokenRelease(ctx, t, app, broken)
			g.uninstall(ctx, t, app)
		})
	}
}

// refused checks the installer's refusal of cgroup v1 with the systemd driver: EveryNodeReady names the node and
// the reason, and containerd keeps its own config, never restarted.
func (g *gardenersNode) refused(ctx context.Context, t *testing.T) {
	t.Helper()
	invocation := g.run(ctx, t, "systemctl show -p InvocationID --value containerd")
	key := client.ObjectKeyFromObject(g.shoot.ContainerRuntime)
	cr, err := e2e.WaitConditions(ctx, g.seed.Client(), key, g.vm.Bound(8*time.Minute), map[gardencorev1beta1.ConditionType]gardencorev1beta1.ConditionStatus{
		"EveryNodeReady": gardencorev1beta1.ConditionFalse,
	})
	testutil.Must(t, err)
	for _, c := range cr.Status.Conditions {
		if c.Type != "EveryNodeReady" {
			continue
		}
		t.Logf("EveryNodeReady: %s", c.Message)
		for _, want := range []string{vmNodeName, "cgroup v1 with the systemd cgroup driver"} {
			if !strings.Contains(c.Message, want) {
				t.Errorf("EveryNodeReady does not say %q: %s", want, c.Message)
			}
		}
	}
	if got := g.run(ctx, t, "sha256sum /etc/containerd/config.toml"); got != g.pristine {
		t.Errorf("the refused install changed containerd's config: %s, want %s", got, g.pristine)
	}
	if after := g.run(ctx, t, "systemctl show -p InvocationID --value containerd"); after != invocation {
		t.Errorf("containerd was restarted on a node the installer refused")
	}
	if left := g.run(ctx, t, "ls -A /var/bin/containerruntimes 2>/dev/null || true"); left != "" {
		t.Errorf("the refused install left files in the bin dir: %s", left)
	}
	if v, ok := g.node(ctx, t).Labels[nodelabel.Key]; ok {
		t.Errorf("the refused node carries the readiness gate's label %s=%s", nodelabel.Key, v)
	}
}

// node is the VM's Node.
func (g *gardenersNode) node(ctx context.Context, t *testing.T) *corev1.Node {
	t.Helper()
	var node corev1.Node
	testutil.Must(t, g.seed.Client().Get(ctx, client.ObjectKey{Name: vmNodeName}, &node))
	return &node
}

// install waits for the installation pod on the VM node and the health conditions, and checks that containerd was
// restarted through systemd.
func (g *gardenersNode) install(ctx context.Context, t *testing.T) {
	t.Helper()
	invocation := g.run(ctx, t, "systemctl show -p InvocationID --value containerd")
	pool := g.shoot.ContainerRuntime.Spec.WorkerPool.Name
	pod, err := e2e.InstallationPod(ctx, g.seed.Client(), pool, vmNodeName, g.vm.Bound(8*time.Minute), e2e.PodReady)
	if err != nil {
		events := ""
		if pod != nil {
			events = e2e.PodEvents(ctx, g.seed.Client(), pod)
		}
		t.Fatalf("%v\n--- the pod's events ---\n%s--- containerd ---\n%s", err, events, g.vm.Journal(ctx, "containerd", 30))
	}
	t.Logf("installation pod %s Ready; the installer: %s", pod.Name, e2e.PodStates(pod))
	// A node like Gardener's installs at the first try: a restarted installer failed a run (a failed proof waits out
	// the release's back-off, minutes) and its last run says why.
	if restarts := pod.Status.InitContainerStatuses[0].RestartCount; restarts > 0 {
		t.Errorf("the installer needed %d restarts on a healthy node: %s\n--- the pod's events ---\n%s", restarts, e2e.PodStates(pod), e2e.PodEvents(ctx, g.seed.Client(), pod))
	}
	// Its steps with their times (a failed run's output says where the time went; a passing one is the baseline).
	t.Logf("the installer's log:\n%s", g.run(ctx, t, "crictl logs $(crictl ps -a -q --name installer | head -1) 2>&1 | tail -n 25"))
	if after := g.run(ctx, t, "systemctl show -p InvocationID --value containerd"); after == invocation {
		t.Errorf("containerd runs in the same systemd invocation as before the install: the installer did not restart it through systemd")
	}
	if v := g.node(ctx, t).Labels[nodelabel.Key]; v != nodelabel.Value {
		t.Errorf("the installer did not set the readiness gate's label on the node: %s=%q, want %q", nodelabel.Key, v, nodelabel.Value)
	}
	cr, err := e2e.WaitConditions(ctx, g.seed.Client(), client.ObjectKeyFromObject(g.shoot.ContainerRuntime), g.vm.Bound(3*time.Minute), healthy)
	testutil.Must(t, err)
	t.Logf("conditions: %v", cr.Status.Conditions)
}

// firstGVisorPod runs the shoot owner's gVisor pod on the VM node and logs the time since t0, when the node was
// empty.
func (g *gardenersNode) firstGVisorPod(ctx context.Context, t *testing.T, t0 time.Time) *corev1.Pod {
	t.Helper()
	app := gvisorPodOnVM("gvisor-app")
	logs, err := e2e.RunPod(ctx, g.seed, app, e2e.GVisorKernelLine, g.vm.Bound(5*time.Minute))
	testutil.Must(t, err)
	t.Logf("empty VM node to a running gVisor pod: %.1fs; the pod's log: %s", time.Since(t0).Seconds(), strings.SplitN(logs, "\n", 2)[0])
	return app
}

// podSlice is the systemd slice the kubelet's systemd driver gives a Guaranteed pod.
func podSlice(p *corev1.Pod) string {
	return "kubepods-pod" + strings.ReplaceAll(string(p.UID), "-", "_") + ".slice"
}

// inItsPodSlice checks that the gVisor pod's sandbox runs in the pod's slice, which holds the pod's limits.
func (g *gardenersNode) inItsPodSlice(ctx context.Context, t *testing.T, pod *corev1.Pod) {
	t.Helper()
	testutil.Must(t, g.seed.Client().Get(ctx, client.ObjectKeyFromObject(pod), pod))
	slice := podSlice(pod)
	cgroups := g.run(ctx, t, "for p in $(pgrep -f runsc-sandbox); do cat /proc/$p/cgroup; done")
	if !strings.Contains(cgroups, "/kubepods.slice/"+slice+"/") {
		t.Errorf("no runsc sandbox in the pod's slice %s; the sandboxes' cgroups:\n%s", slice, cgroups)
	}
	limitFile := "/sys/fs/cgroup/kubepods.slice/" + slice + "/memory.max"
	if g.cgroupV1 {
		limitFile = "/sys/fs/cgroup/memory/kubepods.slice/" + slice + "/memory.limit_in_bytes"
	}
	if limit := g.run(ctx, t, "cat "+limitFile); limit != "67108864" {
		t.Errorf("the pod slice's %s is %s, want 67108864 (the pod's 64Mi)", limitFile, limit)
	}
}

// memoryLimitHolds runs a gVisor pod that allocates 200 MiB under a 64 MiB limit: the kernel's OOM killer must
// end it inside its pod's memory cgroup.
func (g *gardenersNode) memoryLimitHolds(ctx context.Context, t *testing.T) {
	t.Helper()
	hog := gvisorPodOnVM("gvisor-memory-hog")
	hog.Spec.RestartPolicy = corev1.RestartPolicyNever
	hog.Spec.Containers[0].Command = []string{"sh", "-c", "dd if=/dev/zero of=/dev/null bs=200M count=1; echo survived; sleep 86400"}
	testutil.Must(t, g.seed.Client().Create(ctx, hog))
	var terminated *corev1.ContainerStateTerminated
	err := e2e.Poll(ctx, g.vm.Bound(3*time.Minute), time.Second, "the memory hog terminated", func() error {
		if err := g.seed.Client().Get(ctx, client.ObjectKeyFromObject(hog), hog); err != nil {
			return err
		}
		for _, s := range hog.Status.ContainerStatuses {
			if s.State.Terminated != nil {
				terminated = s.State.Terminated
				return nil
			}
		}
		return fmt.Errorf("phase %s: %+v", hog.Status.Phase, hog.Status.ContainerStatuses)
	})
	testutil.Must(t, err)
	kernel := g.run(ctx, t, "journalctl -k --no-pager -o cat | grep 'oom-kill:' || true")
	if !strings.Contains(kernel, "oom_memcg=/kubepods.slice/"+podSlice(hog)) {
		t.Errorf("the kernel's OOM killer did not act in the pod's memory cgroup %s (terminated: %+v); the kernel's oom-kill lines:\n%s", podSlice(hog), terminated, kernel)
	}
	t.Logf("the memory hog: %s (exit %d)", terminated.Reason, terminated.ExitCode)
	testutil.Must(t, g.seed.Client().Delete(ctx, hog))
}

// cpuLimitHolds runs a gVisor pod that spins under a 200m CPU limit: over 10 s its pod slice may use at most
// what the limit gives (with a margin for the accounting's period boundaries), and the kernel throttled it.
func (g *gardenersNode) cpuLimitHolds(ctx context.Context, t *testing.T) {
	t.Helper()
	spin := gvisorPodOnVM("gvisor-cpu-spin")
	spin.Spec.Containers[0].Command = []string{"sh", "-c", "while :; do :; done"}
	if _, err := e2e.RunPod(ctx, g.seed, spin, "", g.vm.Bound(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	testutil.Must(t, g.seed.Client().Get(ctx, client.ObjectKeyFromObject(spin), spin))
	dir := "/sys/fs/cgroup/kubepods.slice/" + podSlice(spin)
	usage := "awk '/^usage_usec/ {print $2}' " + dir + "/cpu.stat"
	throttled := "awk '/^nr_throttled/ {print $2}' " + dir + "/cpu.stat"
	if g.cgroupV1 {
		dir = "/sys/fs/cgroup/cpu,cpuacct/kubepods.slice/" + podSlice(spin)
		usage = "echo $(( $(cat " + dir + "/cpuacct.usage) / 1000 ))"
		throttled = "awk '/^nr_throttled/ {print $2}' " + dir + "/cpu.stat"
	}
	out := g.run(ctx, t, usage+"; sleep 10; "+usage+"; "+throttled)
	var before, after, nrThrottled float64
	if _, err := fmt.Sscan(out, &before, &after, &nrThrottled); err != nil {
		t.Fatalf("reading the spinning pod's CPU usage in %s: %v\n%s", dir, err, out)
	}
	cores := (after - before) / 10e6
	t.Logf("the spinning gVisor pod under a 200m limit: %.3f CPUs over 10 s, throttled %v times", cores, nrThrottled)
	if cores > 0.3 || nrThrottled == 0 {
		t.Errorf("the spinning gVisor pod used %.3f CPUs over 10 s under a 200m limit (throttled %v times): the pod slice's CPU limit does not hold", cores, nrThrottled)
	}
	testutil.Must(t, g.seed.Client().Delete(ctx, spin))
}

// nodeState is what the node holds of gVisor: the checksums of containerd's and runsc's config and of the bin dir's
// files, and the installer's temporaries (none may be left).
const nodeState = `cd /etc/containerd && sha256sum config.toml runsc.toml
find /var/bin/containerruntimes -type f | sort | xargs sha256sum
find /etc/containerd /var/bin/containerruntimes -name '.*.gvisor-installer-*'`

// reboot reboots the node with gVisor installed: gVisor pods run again, containerd starts once (the installer's
// run after the boot changes nothing) and the node's gVisor files are as before.
func (g *gardenersNode) reboot(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	g.rebootKeeps(ctx, t, app, nodeState, "the installer", func() {
		pod, err := e2e.InstallationPod(ctx, g.seed.Client(), g.shoot.ContainerRuntime.Spec.WorkerPool.Name, vmNodeName, g.vm.Bound(5*time.Minute), e2e.PodReady)
		testutil.Must(t, err)
		t.Logf("the installer after the reboot: %s", pod.Status.InitContainerStatuses[0].State.Terminated.Message)
	})
}

// rebootKeeps reboots the node with the gVisor pod app running and waits until app runs again in a new container
// of gVisor; then, after afterBoot (the delivery mode's own check), that containerd started once in this boot
// (whoever re-applies gVisor after a boot, who, restarted it for nothing otherwise) and that the script state
// prints the same as before the reboot.
func (g *gardenersNode) rebootKeeps(ctx context.Context, t *testing.T, app *corev1.Pod, state, who string, afterBoot func()) {
	t.Helper()
	before := g.run(ctx, t, state)
	testutil.Must(t, g.seed.Client().Get(ctx, client.ObjectKeyFromObject(app), app))
	container := app.Status.ContainerStatuses[0].ContainerID
	t0 := time.Now()
	testutil.Must(t, g.vm.Reboot(ctx))
	err := e2e.Poll(ctx, g.vm.Bound(5*time.Minute), time.Second, "the gVisor pod running again after the reboot", func() error {
		if err := g.seed.Client().Get(ctx, client.ObjectKeyFromObject(app), app); err != nil {
			return err
		}
		for _, s := range app.Status.ContainerStatuses {
			if s.State.Running != nil && s.ContainerID != container {
				return nil
			}
		}
		return fmt.Errorf("%+v", app.Status.ContainerStatuses)
	})
	testutil.Must(t, err)
	logs, err := e2e.WaitPodLog(ctx, g.seed, app, e2e.GVisorKernelLine, g.vm.Bound(time.Minute))
	testutil.Must(t, err)
	t.Logf("reboot to the gVisor pod running again: %.1fs (the boot: %.1fs); its log: %s", time.Since(t0).Seconds(),
		g.vm.BootTime().Seconds(), strings.SplitN(logs, "\n", 2)[0])
	afterBoot()
	if starts := g.run(ctx, t, "journalctl -b --no-pager -o cat -u containerd | grep -c '^Started containerd' || true"); starts != "1" {
		t.Errorf("containerd started %s times since the boot, want 1: %s restarted it after the reboot for nothing\n%s", starts, who, g.vm.Journal(ctx, "containerd", 20))
	}
	if after := g.run(ctx, t, state); after != before {
		t.Errorf("the node's gVisor files changed across the reboot:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// brokenRelease rolls a gVisor release that cannot start a sandbox onto the node, as an operator does with
// imageVectorOverwrite: EveryNodeReady turns False naming the node and the failed release, the running gVisor pod
// keeps running and a new one starts (the node fell back to its last proven release).
func (g *gardenersNode) brokenRelease(ctx context.Context, t *testing.T, app *corev1.Pod, broken brokenBuild) {
	t.Helper()
	before := containerID(ctx, t, g.seed, app)
	values := broken.ExtensionValues(t)
	values["imageVectorOverwrite"] = broken.ImageVectorOverwrite(t) + broken.sums
	values["controller"] = extensionValues(t, g.imgs, vmControllerValues)["controller"]
	values["image"] = g.imgs.ExtensionValues(t)["image"] // the seed runs this tree's controller
	testutil.Must(t, e2e.InstallExtension(ctx, g.seed, e2e.Install{Helm: realcomponents.Helm(t), Chart: thisChart, Values: values}))
	key := client.ObjectKeyFromObject(g.shoot.ContainerRuntime)
	annotateReconcile(ctx, t, g.seed, key)
	cond := waitCondition(ctx, t, g.seed, key, gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	t.Logf("EveryNodeReady with the broken release: %s", cond.Message)
	for _, want := range []string{vmNodeName, "failed", "running release v", "gVisor sandbox did not start"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("EveryNodeReady's message lacks %q: %s", want, cond.Message)
		}
	}
	if t.Failed() {
		// The installers' own account, before later steps remove them.
		t.Logf("the installers and the node's release state:\n%s", g.run(ctx, t, "for id in $(crictl ps -a -q --name installer | head -3); do crictl logs --tail 25 $id 2>&1; done; "+
			"ls -l "+path.Join(extensionsv1alpha1.ContainerDRuntimeContainersBinFolder, "gvisor")+"; cat "+path.Join(extensionsv1alpha1.ContainerDRuntimeContainersBinFolder, nodecontract.StateFile)+" || true"))
	}
	if after := containerID(ctx, t, g.seed, app); after != before {
		t.Errorf("the gVisor pod's container changed with the broken release: %s, then %s", before, after)
	}
	late := gvisorPodOnVM("gvisor-late")
	if _, err := e2e.RunPod(ctx, g.seed, late, e2e.GVisorKernelLine, g.vm.Bound(5*time.Minute)); err != nil {
		t.Errorf("a new gVisor pod on the node that fell back to its last proven release: %v", err)
	}
	testutil.Must(t, g.seed.Client().Delete(ctx, late))
}

// uninstall deletes the ContainerRuntime (the gVisor pods gone first, as a shoot owner's rollout does) and checks
// that containerd's config is the node's own again, byte for byte, and no runsc is left.
func (g *gardenersNode) uninstall(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	testutil.Must(t, g.seed.Client().Delete(ctx, app))
	err := e2e.DeleteContainerRuntime(ctx, g.seed, client.ObjectKeyFromObject(g.shoot.ContainerRuntime), g.vm.Bound(6*time.Minute))
	if err != nil {
		t.Fatalf("%v\n--- VM kubelet ---\n%s", err, g.vm.Journal(ctx, "kubelet", 20))
	}
	if got := g.run(ctx, t, "sha256sum /etc/containerd/config.toml"); got != g.pristine {
		t.Errorf("containerd's config after the uninstall is not the node's own: %s, want %s\n%s", got, g.pristine,
			g.run(ctx, t, "cat /etc/containerd/config.toml"))
	}
	if left := g.run(ctx, t, "ls -A /var/bin/containerruntimes 2>/dev/null; ls /etc/containerd/runsc.toml 2>/dev/null || true"); left != "" {
		t.Errorf("gVisor left on the node after the uninstall: %s", left)
	}
}

// usageSeen checks what the kubelet sees of the gVisor pod's usage: containerd's ListPodSandboxStats (crictl
// statsp, which the kubelet's summary reads) and the kubelet's resource metrics, which metrics-server reads for
// `kubectl top pod` (and the eviction manager works from the same stats). The pod's own series come from cAdvisor's
// sample of the pod slice, which can still be the one taken when the slice was made (usage 0) until its next
// housekeeping (10-15 s): the check waits for usage as metrics-server's next scrape would.
func (g *gardenersNode) usageSeen(ctx context.Context, t *testing.T, pod *corev1.Pod) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(g.seed.RESTConfig())
	testutil.Must(t, err)
	var seen []string
	err = e2e.Poll(ctx, g.vm.Bound(usageSampleWait), 5*time.Second, "the gVisor pod's usage in containerd's stats and the kubelet's resource metrics", func() error {
		raw, err := g.vm.Run(ctx, "crictl statsp -o json --id $(crictl pods -q --name "+pod.Name+")")
		if err != nil {
			return err
		}
		var statsp struct {
			Stats []struct {
				Linux struct {
					CPU    struct{ UsageCoreNanoSeconds struct{ Value string } }
					Memory struct{ WorkingSetBytes struct{ Value string } }
				}
			}
		}
		if err := json.Unmarshal([]byte(raw), &statsp); err != nil || len(statsp.Stats) != 1 ||
			!positive(statsp.Stats[0].Linux.Memory.WorkingSetBytes.Value) || !positive(statsp.Stats[0].Linux.CPU.UsageCoreNanoSeconds.Value) {
			return fmt.Errorf("ListPodSandboxStats of the gVisor pod has no memory or CPU usage (%v):\n%s", err, raw)
		}
		metrics, err := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", vmNodeName, "proxy", "metrics", "resource").DoRaw(ctx)
		if err != nil {
			return err
		}
		seen = seen[:0]
		for _, series := range []string{
			`container_cpu_usage_seconds_total{container="app",namespace="default",pod="` + pod.Name + `"}`,
			`container_memory_working_set_bytes{container="app",namespace="default",pod="` + pod.Name + `"}`,
			`pod_cpu_usage_seconds_total{namespace="default",pod="` + pod.Name + `"}`,
			`pod_memory_working_set_bytes{namespace="default",pod="` + pod.Name + `"}`,
		} {
			line := sampleLine(string(metrics), series)
			if f := strings.Fields(line); len(f) < 2 || !positive(f[1]) {
				return fmt.Errorf("the kubelet's resource metrics (what kubectl top pod shows) have no usage for %s: %q", series, line)
			}
			seen = append(seen, line)
		}
		return nil
	})
	testutil.Must(t, err)
	for _, line := range seen {
		t.Log(line)
	}
}

// sandboxMetricsWithinSlice runs a gVisor pod that holds 40 MiB in its tmpfs and reads the node's metric server
// (sandbox metrics) beside the pod's cgroup: the sentry's memory figure for the pod is at least the 40 MiB and at
// most the pod slice's memory.current (which holds the sentry and the gofer besides the application), and the
// container's CPU time at most the slice's. The slice is read after the scrape: both only grow in between.
func (g *gardenersNode) sandboxMetricsWithinSlice(ctx context.Context, t *testing.T) {
	t.Helper()
	pod := gvisorPodOnVM("gvisor-tmpfs")
	pod.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory] = resource.MustParse("256Mi")
	pod.Spec.Containers[0].Command = []string{"sh", "-c", "dd if=/dev/zero of=/dev/shm/fill bs=1M count=40 && echo filled && exec sleep 86400"}
	_, err := e2e.RunPod(ctx, g.seed, pod, "filled", g.vm.Bound(5*time.Minute))
	testutil.Must(t, err)
	testutil.Must(t, g.seed.Client().Get(ctx, client.ObjectKeyFromObject(pod), pod))
	server, err := e2e.InstallationPod(ctx, g.seed.Client(), g.shoot.ContainerRuntime.Spec.WorkerPool.Name, vmNodeName, g.vm.Bound(time.Minute), withMetricServer)
	testutil.Must(t, err)
	dir := "/sys/fs/cgroup/kubepods.slice/" + podSlice(pod)
	// The node asks its metric server as Prometheus does (plain http, bash's /dev/tcp: the node has no curl).
	out := g.run(ctx, t, fmt.Sprintf(`exec 3<>/dev/tcp/%s/%d
printf 'GET /metrics HTTP/1.0\r\nHost: node\r\n\r\n' >&3
cat <&3 | grep -E '^runsc_(sandbox_memory_usage_bytes|container_cpu_usage_seconds_total)\{.*pod_name="%s"' || true
echo "slice_memory_current $(cat %s/memory.current)"
echo "slice_cpu_usage_usec $(awk '/^usage_usec/ {print $2}' %s/cpu.stat)"`, server.Status.PodIP, render.MetricServerPort, pod.Name, dir, dir))
	var sandboxMemory, containerCPU, sliceMemory, sliceCPU float64
	for _, line := range strings.Split(out, "\n") {
		name, v, ok := sampleValue(line)
		switch {
		case !ok:
		case name == "runsc_sandbox_memory_usage_bytes":
			sandboxMemory = v
		case name == "runsc_container_cpu_usage_seconds_total" && strings.Contains(line, `container="app"`):
			containerCPU = v
		case name == "slice_memory_current":
			sliceMemory = v
		case name == "slice_cpu_usage_usec":
			sliceCPU = v / 1e6
		}
	}
	t.Logf("metric server: sandbox memory %.1f MiB, container CPU %.3f s; pod slice: memory.current %.1f MiB, CPU %.3f s",
		sandboxMemory/(1<<20), containerCPU, sliceMemory/(1<<20), sliceCPU)
	if sandboxMemory < 40<<20 || sandboxMemory > sliceMemory {
		t.Errorf("the metric server's memory for the pod holding 40 MiB is %.0f bytes, want between 40 MiB and the pod slice's memory.current %.0f:\n%s", sandboxMemory, sliceMemory, out)
	}
	if containerCPU <= 0 || containerCPU > sliceCPU {
		t.Errorf("the metric server's CPU time for the container is %.3f s, want above 0 and at most the pod slice's %.3f s:\n%s", containerCPU, sliceCPU, out)
	}
	testutil.Must(t, g.seed.Client().Delete(ctx, pod))
}

// sampleValue is the metric name and value of one line of Prometheus' text format: name{labels} value [timestamp],
// or name value.
func sampleValue(line string) (string, float64, bool) {
	name, rest := line, ""
	if i := strings.IndexAny(line, "{ "); i >= 0 {
		name, rest = line[:i], line[i:]
	}
	if i := strings.LastIndex(rest, "}"); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if name == "" || len(f) == 0 {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return name, v, err == nil
}
