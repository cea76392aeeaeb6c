// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"testing"
	"time"

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
