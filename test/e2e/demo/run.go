// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// run is the demo: every step prints one line with its duration.
func run(ctx context.Context, o options) (err error) {
	cfg, err := nodeConfig(o)
	if err != nil {
		return err
	}
	version, err := kubeletVersion(o.assets)
	if err != nil {
		return err
	}
	shoot, err := e2e.LoadShoot("example/seed/cluster.yaml", "example/containerruntime.yaml", version)
	if err != nil {
		return err
	}
	cfg.NodeName, cfg.NodeLabels = shoot.Namespace.Name+"-"+shoot.Worker.Name+"-z1-demo", shoot.NodeLabels()
	dir, err := os.MkdirTemp("", "gvisor-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var values map[string]any
	if err := step("images of this tree built (pkg/images, as a release, no Docker)", func() (err error) {
		cfg.Images, values, err = buildImages(ctx, o.gvisorDir, dir)
		return err
	}); err != nil {
		return err
	}
	var n *kubenode.Node
	if err := step(fmt.Sprintf("node %s up (kubelet %s, containerd %s)", cfg.NodeName, version, cfg.Containerd.Version), func() (err error) {
		n, err = kubenode.Start(ctx, cfg)
		return err
	}); err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, step("node torn down (every process, mount, cgroup)", n.Stop))
	}()
	return onNode(ctx, o, n, shoot, values)
}

// onNode installs the extension, creates the shoot's objects, waits for the node and runs the gVisor pod.
func onNode(ctx context.Context, o options, n *kubenode.Node, shoot *e2e.Shoot, values map[string]any) error {
	var rm *envtest.ResourceManager
	if err := step("seed prepared (Gardener's CRDs), gardener-resource-manager started", func() (err error) {
		if err := e2e.PrepareSeed(ctx, n); err != nil {
			return err
		}
		rm, err = envtest.StartResourceManager(ctx, n.RESTConfig(), logrDiscard())
		return err
	}); err != nil {
		return err
	}
	defer func() { _ = rm.Stop() }()
	if err := step("extension chart installed with helm; controller pod Ready", func() error {
		// Health every 10 s instead of the chart's 30 s, so that the demo shows it sooner.
		values["controller"] = map[string]any{"healthCheckSyncPeriod": "10s"}
		return e2e.InstallExtension(ctx, n, e2e.Install{Helm: o.helm, Chart: "charts/gardener-extension-runtime-gvisor", Values: values})
	}); err != nil {
		return err
	}
	if err := step("shoot namespace, Cluster, ContainerRuntime "+shoot.ContainerRuntime.Name+" applied as gardenlet does", func() error {
		if err := shoot.Create(ctx, n); err != nil {
			return err
		}
		return shoot.CreateContainerRuntime(ctx, n)
	}); err != nil {
		return err
	}
	if err := waitNode(ctx, n, shoot); err != nil {
		return err
	}
	return gvisorPod(ctx, n)
}

// waitNode waits for the installation pod and the ContainerRuntime's health, and prints both.
func waitNode(ctx context.Context, n *kubenode.Node, shoot *e2e.Shoot) error {
	starts := n.ContainerdStarts()
	if err := stepWith("installation pod Ready through the kubelet (containerd restarted over D-Bus, sandbox proven)", func(note func(string, ...any)) error {
		pod, err := e2e.InstallationPod(ctx, n.Client(), shoot.Worker.Name, n.Name(), 3*time.Minute, e2e.PodReady)
		if err == nil && len(pod.Status.InitContainerStatuses) > 0 && pod.Status.InitContainerStatuses[0].State.Terminated != nil {
			note("installer's report: %s", strings.TrimSpace(pod.Status.InitContainerStatuses[0].State.Terminated.Message))
		}
		note("containerd restarts through the systemd stand-in: %d", n.ContainerdStarts()-starts)
		return err
	}); err != nil {
		return err
	}
	return stepWith("ContainerRuntime healthy (the controller's health checks read the real pod statuses)", func(note func(string, ...any)) error {
		cr, err := e2e.WaitConditions(ctx, n.Client(), client.ObjectKeyFromObject(shoot.ContainerRuntime), 2*time.Minute, map[gardencorev1beta1.ConditionType]gardencorev1beta1.ConditionStatus{
			gardencorev1beta1.ShootSystemComponentsHealthy: gardencorev1beta1.ConditionTrue,
			gardencorev1beta1.ShootEveryNodeReady:          gardencorev1beta1.ConditionTrue,
		})
		if err == nil {
			for _, c := range cr.Status.Conditions {
				note("%-24s %s  %s", c.Type, c.Status, c.Message)
			}
		}
		return err
	})
}

// gvisorPod runs a shoot owner's pod with runtimeClassName gvisor and prints its kernel line and version.
func gvisorPod(ctx context.Context, n *kubenode.Node) error {
	return stepWith("pod with runtimeClassName gvisor Running", func(note func(string, ...any)) error {
		logs, err := e2e.RunPod(ctx, n, e2e.ShootOwnerPod("default", "gvisor-demo", new("gvisor")), e2e.GVisorKernelLine, 2*time.Minute)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, e2e.GVisorKernelLine) {
				note("kubectl logs gvisor-demo: %s", strings.TrimSpace(line))
			}
		}
		out, err := e2e.Kubectl(ctx, n, "exec", "-n", "default", "gvisor-demo", "--", "cat", "/proc/version")
		note("kubectl exec gvisor-demo -- cat /proc/version: %s", strings.TrimSpace(out))
		return err
	})
}

// kubeletVersion is the node's Kubernetes version (the shoot's, on a real node), e.g. 1.35.8.
func kubeletVersion(assets string) (string, error) {
	out, err := exec.Command(assets+"/kubelet", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("kubelet --version in %s: %w", assets, err)
	}
	return strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(string(out), "Kubernetes")), "v"), nil
}
