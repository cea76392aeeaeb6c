// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// kubernetesVersion is the node's (hack/tools/control-plane.sh's K8S_VERSION), which the shoot's Cluster states.
const kubernetesVersion = "1.35.8"

// nodeName is shaped like a Gardener node's name (shoot namespace, pool, zone, machine hash).
const nodeName = "shoot--foo--bar-worker-gvisor-z1-6d5c8-xk2p4"

// healthy is what a shoot owner's gVisor pool reports on a working node.
var healthy = map[gardencorev1beta1.ConditionType]gardencorev1beta1.ConditionStatus{
	gardencorev1beta1.ShootSystemComponentsHealthy: gardencorev1beta1.ConditionTrue,
	gardencorev1beta1.ShootEveryNodeReady:          gardencorev1beta1.ConditionTrue,
}

// TestExtensionOnRealNode installs the extension as an operator does (helm, the chart and images of this tree) on
// a real node of each containerd release, creates a gVisor pool's ContainerRuntime as gardenlet does, and checks
// the promise on the node and through the API: the installation pod, run by the kubelet with the chart's
// securityContext, mounts, probes and args, restarts containerd through the system bus and becomes Ready; both
// health conditions are True from the real pod statuses; a shoot owner's pod with runtimeClassName gvisor runs in
// a gVisor sandbox, with kubectl logs and exec; deleting the ContainerRuntime uninstalls gVisor from the node
// through the kubelet while a runc pod keeps running.
func TestExtensionOnRealNode(t *testing.T) {
	imgs := ourImages(t)
	helm := realcomponents.Helm(t)
	for _, c := range kubenode.Releases(t) {
		t.Run(c.Version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			n, shoot := onRealNode(ctx, t, c, helm, thisChart, imgs, nil)
			pool := shoot.ContainerRuntime.Spec.WorkerPool.Name
			pod, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, 3*time.Minute, e2e.PodReady)
			if err != nil {
				t.Fatalf("%v\n--- containerd ---\n%s", err, n.LogTail("containerd", 30))
			}
			t.Logf("installation pod %s Ready; its report: %s", pod.Name, pod.Status.InitContainerStatuses[0].State.Terminated.Message)
			if n.ContainerdStarts() < 2 {
				t.Errorf("containerd started %d times: the installer did not restart it through the system bus", n.ContainerdStarts())
			}
			cr, err := e2e.WaitConditions(ctx, n.Client(), client.ObjectKeyFromObject(shoot.ContainerRuntime), 2*time.Minute, healthy)
			testutil.Must(t, err)
			t.Logf("conditions: %v", cr.Status.Conditions)
			runGVisorPod(ctx, t, n, "default")
			uninstall(ctx, t, n, shoot)
		})
	}
}

// uninstall removes gVisor from the pool (the ContainerRuntime deleted, as gardenlet does when the pool drops
// gvisor) while a runc pod runs, and checks the node: runsc gone from containerd's config and the bin dir, the runc
// pod still running in the same container.
func uninstall(ctx context.Context, t *testing.T, n *kubenode.Node, shoot *e2e.Shoot) {
	t.Helper()
	runc := e2e.ShootOwnerPod("default", "runc-app", nil)
	if _, err := e2e.RunPod(ctx, n, runc, "Linux version", time.Minute); err != nil {
		t.Fatal(err)
	}
	before := containerID(ctx, t, n, runc)
	// A gVisor pod cannot outlive its runtime's removal; the shoot owner's rollout removes them first.
	testutil.Must(t, n.Client().Delete(ctx, e2e.ShootOwnerPod("default", "gvisor-app", nil)))
	starts := n.ContainerdStarts()
	if err := e2e.DeleteContainerRuntime(ctx, n, client.ObjectKeyFromObject(shoot.ContainerRuntime), 3*time.Minute); err != nil {
		t.Fatalf("%v\n--- kubelet ---\n%s", err, n.LogTail("kubelet", 20))
	}
	inConfig, binaries, err := e2e.RunscOnNode(n)
	testutil.Must(t, err)
	if inConfig || len(binaries) > 0 {
		t.Errorf("after the uninstall the node still has runsc: in config.toml %v, binaries %v", inConfig, binaries)
	}
	if n.ContainerdStarts() == starts {
		t.Errorf("the uninstall did not restart containerd (through the system bus) to drop the runsc handler")
	}
	if after := containerID(ctx, t, n, runc); after != before {
		t.Errorf("the runc pod's container changed across the uninstall: %s, then %s", before, after)
	}
}

// containerID is the pod's running container's ID (it changes when the container is restarted).
func containerID(ctx context.Context, t *testing.T, n *kubenode.Node, pod *corev1.Pod) string {
	t.Helper()
	var p corev1.Pod
	testutil.Must(t, n.Client().Get(ctx, client.ObjectKeyFromObject(pod), &p))
	if len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Running == nil {
		t.Fatalf("pod %s does not run: %+v", p.Name, p.Status.ContainerStatuses)
	}
	return p.Status.ContainerStatuses[0].ContainerID
}

// thisChart is this tree's extension chart.
const thisChart = "../../charts/gardener-extension-runtime-gvisor"

// onRealNode starts a real node of release c with the images imported (imgs, and more, say an earlier release's),
// installs the extension from chart with imgs (controller: extra values under controller), and creates example/'s
// shoot with its gVisor pool's ContainerRuntime, as gardenlet does.
func onRealNode(ctx context.Context, t testing.TB, c installertest.Containerd, helm, chart string, imgs *images.Built, controller map[string]any, more ...*images.Built) (*kubenode.Node, *e2e.Shoot) {
	t.Helper()
	shoot, err := e2e.LoadShoot("../../example/seed/cluster.yaml", "../../example/containerruntime.yaml", kubernetesVersion)
	testutil.Must(t, err)
	cfg := kubenode.EnvConfig(t, c)
	cfg.NodeName, cfg.NodeLabels, cfg.Images = nodeName, shoot.NodeLabels(), archives(imgs)
	for _, m := range more {
		cfg.Images = append(cfg.Images, archives(m)...)
	}
	n := kubenode.New(t, cfg)
	startExtensionFrom(ctx, t, n, helm, chart, imgs, controller)
	testutil.Must(t, shoot.Create(ctx, n))
	testutil.Must(t, shoot.CreateContainerRuntime(ctx, n))
	return n, shoot
}

// ourImages builds this tree's three images as a release builds them (test/images), named apart from the released
// ones (registry.invalid, RFC 6761: a pull fails instead of reaching a registry): the chart's image values and
// imageVectorOverwrite point at them, as an operator's would at a private registry.
func ourImages(t testing.TB) *images.Built {
	t.Helper()
	return images.Build(t, images.Options{Registry: "registry.invalid/runtime-gvisor", Tag: "e2e"})
}

// archives are the images' archives, for the node to import.
func archives(b *images.Built) []string {
	var out []string
	for _, img := range b.Images {
		out = append(out, img.Archive)
	}
	return out
}

// startExtensionFrom prepares the seed, starts gardener-resource-manager (in the test process, dialling into the
// node) and installs the extension chart (this tree's, or an earlier release's) with imgs.
func startExtensionFrom(ctx context.Context, t testing.TB, n *kubenode.Node, helm, chart string, imgs *images.Built, controller map[string]any) {
	t.Helper()
	startExtensionWith(ctx, t, n, helm, chart, extensionValues(t, imgs, controller))
}

// startExtensionWith prepares n as a seed, starts gardener-resource-manager and installs chart with values.
func startExtensionWith(ctx context.Context, t testing.TB, n *kubenode.Node, helm, chart string, values map[string]any) {
	t.Helper()
	testutil.Must(t, e2e.PrepareSeed(ctx, n))
	t.Cleanup(func() { // before the node's own clean-up, which logs its components' tails
		if t.Failed() {
			t.Logf("--- the extension's pods (log tails) ---\n%s", e2e.ExtensionLogs(context.Background(), n, 40))
		}
	})
	rm, err := envtest.StartResourceManager(ctx, n.RESTConfig(), logr.Discard())
	testutil.Must(t, err)
	t.Cleanup(func() { _ = rm.Stop() })
	if err := e2e.InstallExtension(ctx, n, e2e.Install{Helm: helm, Chart: chart, Values: values}); err != nil {
		t.Fatalf("%v\n--- kubelet ---\n%s", err, n.LogTail("kubelet", 30))
	}
}

// extensionValues are the chart values that run imgs, with the health checks every 5 s and controller's values.
func extensionValues(t testing.TB, imgs *images.Built, controller map[string]any) map[string]any {
	values := map[string]any{"healthCheckSyncPeriod": "5s"}
	for k, v := range controller {
		values[k] = v
	}
	chartValues := imgs.ExtensionValues(t)
	chartValues["controller"] = values
	return chartValues
}

// runGVisorPod runs a shoot owner's pod with runtimeClassName gvisor and checks its kernel with kubectl logs and
// kubectl exec.
func runGVisorPod(ctx context.Context, t *testing.T, n *kubenode.Node, namespace string) {
	t.Helper()
	logs, err := e2e.RunPod(ctx, n, e2e.ShootOwnerPod(namespace, "gvisor-app", new("gvisor")), e2e.GVisorKernelLine, 2*time.Minute)
	if err != nil {
		t.Fatalf("%v\n--- containerd ---\n%s", err, n.LogTail("containerd", 30))
	}
	t.Logf("the gVisor pod's log: %s", strings.SplitN(logs, "\n", 2)[0])
	out, err := e2e.Kubectl(ctx, n, "exec", "-n", namespace, "gvisor-app", "--", "dmesg")
	if err != nil || !strings.Contains(out, e2e.GVisorKernelLine) {
		t.Errorf("kubectl exec dmesg in the gVisor pod: %v\n%s", err, out)
	}
	if out, err := e2e.Kubectl(ctx, n, "logs", "-n", namespace, "gvisor-app"); err != nil || !strings.Contains(out, e2e.GVisorKernelLine) {
		t.Errorf("kubectl logs of the gVisor pod: %v\n%s", err, out)
	}
}
