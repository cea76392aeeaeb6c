// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// kubeletConfig is the node's KubeletConfiguration: this machine's facts (cgroup v1 with cgroupfs, no swap
// check, no CAP_SYS_RESOURCE so no negative oomScoreAdj, no resolv.conf, no DNS), a private cgroup root, and no
// image garbage collection (imported images cannot be pulled again). Its cgroup root is the node's cgroup
// namespace's, the node's own cgroup on the machine (namespaces.go).
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %q}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: /
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failCgroupV1: false
failSwapOn: false
oomScoreAdj: 0
resolvConf: ""
clusterDomain: cluster.local
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 1Mi, nodefs.available: 1%%, imagefs.available: 1%%, nodefs.inodesFree: 1%%}
serializeImagePulls: false
nodeStatusUpdateFrequency: 5s
syncFrequency: 10s
`

func (n *Node) writeKubeletConfig() error {
	return os.WriteFile(n.path("kubelet/config.yaml"), fmt.Appendf(nil, kubeletConfig, n.pki.CAFile), 0o644)
}

// startKubelet starts the kubelet, labels the Node and waits until it is Ready.
func (n *Node) startKubelet(ctx context.Context) error {
	args := []string{n.asset("kubelet"), "--config=" + n.path("kubelet/config.yaml"),
		"--kubeconfig=" + n.path("kubelet.kubeconfig"), "--hostname-override=" + n.cfg.NodeName, "--node-ip=" + NodeIP,
		"--root-dir=/var/lib/kubelet", "--cert-dir=/var/lib/kubelet/pki", "--v=2"}
	kubelet, err := n.start("kubelet", nil, args...)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if err := kubelet.exitErr(); err != nil {
			return fmt.Errorf("%w\n%s", err, kubelet.logTail(40))
		}
		var node corev1.Node
		err := n.client.Get(ctx, client.ObjectKey{Name: n.cfg.NodeName}, &node)
		if err == nil {
			if err = n.labelNode(ctx, &node); err == nil && nodeReady(&node) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s not Ready within 2m (%v)\n%s", n.cfg.NodeName, err, kubelet.logTail(40))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// labelNode sets Config.NodeLabels on the registered Node, as machine-controller-manager does on a Gardener node
// (the kubelet may not set most of them itself: NodeRestriction refuses node.kubernetes.io/role, say).
func (n *Node) labelNode(ctx context.Context, node *corev1.Node) error {
	patch := client.MergeFrom(node.DeepCopy())
	changed := false
	for k, v := range n.cfg.NodeLabels {
		if node.Labels[k] != v {
			if node.Labels == nil {
				node.Labels = map[string]string{}
			}
			node.Labels[k], changed = v, true
		}
	}
	if !changed {
		return nil
	}
	return n.client.Patch(ctx, node, patch)
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// createCgroupRoot creates the node's cgroup in every cgroup hierarchy, with the cpuset hierarchy's cpus and mems
// copied from the root, which a new v1 cpuset lacks; the node's cgroup namespace is rooted there.
func (n *Node) createCgroupRoot() ([]cgroupBind, error) {
	mounts, err := nodetest.CgroupMounts()
	if err != nil {
		return nil, err
	}
	var out []cgroupBind
	for _, m := range mounts {
		dir := filepath.Join(m, n.cgroupRoot)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the node's cgroup: %w", err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if data, err := os.ReadFile(filepath.Join(m, f)); err == nil {
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					return nil, fmt.Errorf("%s of the node's cgroup: %w", f, err)
				}
			}
		}
		out = append(out, cgroupBind{Hierarchy: m, Node: dir})
	}
	return out, nil
}
