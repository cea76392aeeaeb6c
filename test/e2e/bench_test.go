// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// BenchmarkEmptyNodeToGVisorPod measures, per containerd release, a real node from nothing to the first pod with
// runtimeClassName gvisor Running (BENCHMARKS.md "Real node"): node-s is the node's start (namespaces, control
// plane, containerd with the images imported, kubelet, Node Ready), chart-s the extension chart's install until
// the controller pod is Ready, cr-to-ready-s from the ContainerRuntime's creation to the installation pod Ready,
// installer-s the installer init container's run (started to exited, as the kubelet reports it, in whole seconds:
// copy, config, containerd restart over D-Bus, sandbox proof), pod-s the gVisor pod from creation to its kernel's first line, and
// total-s all of it. Run with -benchtime 1x; the images are built (warm) before the timer.
func BenchmarkEmptyNodeToGVisorPod(b *testing.B) {
	imgs := ourImages(b)
	helm := realcomponents.Helm(b)
	for _, c := range kubenode.Releases(b) {
		b.Run(c.Version, func(b *testing.B) {
			for b.Loop() {
				emptyNodeToGVisorPod(b, c, imgs, helm)
			}
		})
	}
}

func emptyNodeToGVisorPod(b *testing.B, c installertest.Containerd, imgs *images.Built, helm string) {
	shoot, err := e2e.LoadShoot("../../example/seed/cluster.yaml", "../../example/containerruntime.yaml", kubernetesVersion)
	testutil.Must(b, err)
	cfg := kubenode.EnvConfig(b, c)
	cfg.Log = nil
	cfg.NodeName, cfg.NodeLabels, cfg.Images = nodeName, shoot.NodeLabels(), archives(imgs)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	t0 := time.Now()
	n, err := kubenode.Start(ctx, cfg)
	testutil.Must(b, err)
	defer func() { testutil.Must(b, n.Stop()) }()
	tNode := time.Now()
	startExtensionFrom(ctx, b, n, helm, thisChart, imgs, nil)
	tChart := time.Now()
	testutil.Must(b, shoot.Create(ctx, n))
	testutil.Must(b, shoot.CreateContainerRuntime(ctx, n))
	pod, err := e2e.InstallationPod(ctx, n.Client(), shoot.Worker.Name, nodeName, 3*time.Minute, e2e.PodReady)
	testutil.Must(b, err)
	tReady := time.Now()
	installer := pod.Status.InitContainerStatuses[0].State.Terminated
	tPod := time.Now()
	_, err = e2e.RunPod(ctx, n, e2e.ShootOwnerPod("default", "gvisor-app", new("gvisor")), e2e.GVisorKernelLine, 2*time.Minute)
	testutil.Must(b, err)
	tEnd := time.Now()
	b.ReportMetric(tNode.Sub(t0).Seconds(), "node-s")
	b.ReportMetric(tChart.Sub(tNode).Seconds(), "chart-s")
	b.ReportMetric(tReady.Sub(tChart).Seconds(), "cr-to-ready-s")
	b.ReportMetric(installer.FinishedAt.Sub(installer.StartedAt.Time).Seconds(), "installer-s")
	b.ReportMetric(tEnd.Sub(tPod).Seconds(), "pod-s")
	b.ReportMetric(tEnd.Sub(t0).Seconds(), "total-s")
}

// BenchmarkMetricServerScrape measures one scrape of a node's metric server (sandbox metrics on) through the API
// server's pod proxy, as Gardener's shoot Prometheus scrapes it, on the newest containerd release (BENCHMARKS.md
// "Metric server: a starved sandbox"): "healthy" with three gVisor pods at rest, "one-starved" with a fourth whose
// container spins under a 1m CPU limit (its sentry shares the pod cgroup's 1 ms of CPU per 100 ms with the spinning
// task). ns/op is one scrape's wall time; sandboxes and broken are what the scrape reported
// (runsc_num_sandboxes_running, runsc_num_sandboxes_broken_metrics). Run with -benchtime 20x.
func BenchmarkMetricServerScrape(b *testing.B) {
	releases := kubenode.Releases(b)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	n, shoot := onRealNode(ctx, b, releases[len(releases)-1], realcomponents.Helm(b), thisChart, ourImages(b), map[string]any{"sandboxMetrics": true})
	_, err := e2e.WaitConditions(ctx, n.Client(), client.ObjectKeyFromObject(shoot.ContainerRuntime), 3*time.Minute, healthy)
	testutil.Must(b, err)
	server, err := e2e.InstallationPod(ctx, n.Client(), shoot.Worker.Name, nodeName, time.Minute, withMetricServer)
	testutil.Must(b, err)
	for i := range 3 {
		_, err := e2e.RunPod(ctx, n, e2e.ShootOwnerPod("default", fmt.Sprintf("gvisor-at-rest-%d", i), new("gvisor")), e2e.GVisorKernelLine, 2*time.Minute)
		testutil.Must(b, err)
	}
	cs, err := kubernetes.NewForConfig(n.RESTConfig())
	testutil.Must(b, err)
	scrape := func(b *testing.B) {
		var raw []byte
		for b.Loop() {
			raw, err = cs.CoreV1().Pods(server.Namespace).ProxyGet("http", server.Name, strconv.Itoa(render.MetricServerPort), "/metrics", nil).DoRaw(ctx)
			testutil.Must(b, err)
		}
		for name, unit := range map[string]string{"runsc_num_sandboxes_running": "sandboxes", "runsc_num_sandboxes_broken_metrics": "broken"} {
			for _, line := range strings.Split(string(raw), "\n") {
				if got, v, ok := sampleValue(line); ok && got == name {
					b.ReportMetric(v, unit)
				}
			}
		}
	}
	b.Run("healthy", scrape)
	starved := e2e.ShootOwnerPod("default", "gvisor-starved", new("gvisor"))
	starved.Spec.Containers[0].Command = []string{"sh", "-c", "echo spinning; while :; do :; done"}
	starved.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	_, err = e2e.RunPod(ctx, n, starved, "spinning", 5*time.Minute)
	testutil.Must(b, err)
	b.Run("one-starved", scrape)
}
