// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package e2e runs the extension as it ships on a real node (test/kubenode): the extension chart installed with
// the real helm CLI from this tree, the controller as the chart's Deployment pod from its image (test/images),
// gardener-resource-manager applying its ManagedResources, the installation DaemonSet's pods run by the real
// kubelet on real containerd, and a shoot owner's pod with runtimeClassName gvisor in a real gVisor sandbox.
//
// The node cluster is seed and shoot at once (test/kubenode's doc). What gardenlet would do is done here by the
// test: the seed's PriorityClass and Gardener's CRDs, the shoot namespace with its Cluster and shoot access
// secret, the ContainerRuntime of a worker pool with the operation annotation.
//
// With sandbox metrics on, a real Prometheus (test/shootprometheus) runs as the shoot's: prometheus-operator's own code
// (test/tools/prometheus-config) turns the ScrapeConfig and PrometheusRule the controller deployed into its
// configuration, gardener-resource-manager's token requestor fills the shoot access secret made by Gardener's
// NewShootAccessSecret, and the RBAC is the target ManagedResource of Gardener's shoot prometheus component.
//
// # Gardener's node
//
// TestExtensionOnGardenersNode adds a second node to that cluster: a VM that boots like a Gardener worker
// (test/vmnode: systemd as PID 1, cgroup v2, containerd as a systemd unit, the kubelet with the systemd cgroup
// driver). The namespace node is then only the seed (the extension's controller runs there); the VM carries the
// gVisor pool's labels, so the installation DaemonSet and the shoot owner's pods run there, and the installer
// restarts containerd through the VM's real systemd. QEMU runs in the namespace node's network, so the VM reaches
// the API server as 10.0.2.2, and the API server reaches the VM's kubelet (logs, exec, metrics) through a port QEMU
// forwards from the VM's InternalIP on the namespace node's loopback.
//
// TestOSCModeOnGardenersNode runs the other delivery mode on such a node: the chart with deliveryMode
// operatingsystemconfig, the pool's OperatingSystemConfig written to the seed as gardenlet writes it and mutated by
// the extension's deployed webhook (the API server reaches it at its pods: no kube-proxy runs on the namespace
// node), the pool's OSC secret computed by Gardener's own code, and Gardener's gardener-node-agent on the VM
// applying it through the VM's systemd before the kubelet joins, the installation image pulled from a real
// registry (test/ociregistry) on the namespace node's loopback.
//
// The package's non-test files are the steps, shared by its tests and by `make demo`'s real-node part
// (test/e2e/demo).
package e2e
