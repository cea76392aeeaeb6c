// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// BinDir is the node path of the installer's bin dir (the installation chart's default binaryPath).
const BinDir = "/var/bin/containerruntimes"

// kernelTunables are the sysctls the kubelet sets at start where they differ (KubeletConfiguration
// protectKernelDefaults false; k8s.io/component-helpers/node/util/sysctl): none is namespaced, so the node sees
// regular files holding these values instead, and the machine's own stay as they are.
var kernelTunables = map[string]string{
	"vm/overcommit_memory":      "1",
	"vm/panic_on_oom":           "0",
	"kernel/panic":              "10",
	"kernel/panic_on_oops":      "1",
	"kernel/keys/root_maxkeys":  "1000000",
	"kernel/keys/root_maxbytes": "25000000",
}

// writeFiles lays out the node's work directory: the directories bound over /var, /etc/containerd, /opt/containerd,
// /run/containerd and /run/dbus, the certificates and kubeconfigs, containerd's config, CNI, the shim wrapper, the
// kernel tunables, the bus config and the kubelet's config.
func (n *Node) writeFiles(context.Context) error {
	for _, d := range []string{"var/lib/dbus", "var/log", BinDir[1:], "etc-containerd/conf.d", "opt", "dbus", "run-containerd",
		"cni/net.d", "cni/ipam", "wrapper", "logs", "etcd", "sysctl", "kubelet"} {
		if err := os.MkdirAll(n.path(d), 0o755); err != nil {
			return err
		}
	}
	// Debian's /var/run is a link to /run; CNI plugins and containerd use both names.
	if err := os.Symlink("/run", n.path("var/run")); err != nil {
		return err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	if err := os.WriteFile(n.path("var/lib/dbus/machine-id"), []byte(hex.EncodeToString(id)+"\n"), 0o644); err != nil {
		return err
	}
	n.cgroupRoot = "/gvisor-kubenode-" + hex.EncodeToString(id[:4])
	for _, write := range []func() error{n.writePKI, n.writeContainerdFiles, n.writeTunables, n.writeBusConfig, n.writeKubeletConfig} {
		if err := write(); err != nil {
			return err
		}
	}
	return nil
}

// writePKI issues the node cluster's certificates and writes the components' kubeconfigs.
func (n *Node) writePKI() error {
	var err error
	if n.pki, err = newPKI(n.path("pki")); err != nil {
		return err
	}
	// kube-apiserver is the name a shoot's API server has in its namespace on the seed (its certificate carries it):
	// the clients of the seed's components there, Gardener's generic token kubeconfig among them, verify it.
	if _, err := n.pki.serving("kube-apiserver", []net.IP{net.ParseIP(NodeIP), net.ParseIP(KubernetesServiceIP), net.ParseIP("127.0.0.1")},
		[]string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost", "kube-apiserver"}); err != nil {
		return err
	}
	if _, err := n.pki.serviceAccountKey(); err != nil {
		return err
	}
	// The API server's client for kubelet logs, exec and port-forward.
	if _, err := n.pki.client("kube-apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters"); err != nil {
		return err
	}
	if n.admin, err = n.pki.client("admin", "kubenode-admin", "system:masters"); err != nil {
		return err
	}
	for name, user := range map[string][]string{
		"kubelet":                 {"system:node:" + n.cfg.NodeName, "system:nodes"},
		"kube-controller-manager": {"system:kube-controller-manager"},
		"kube-scheduler":          {"system:kube-scheduler"},
	} {
		kc, err := n.Kubeconfig(name, user[0], user[1:]...)
		if err != nil {
			return err
		}
		if err := os.WriteFile(n.path(name+".kubeconfig"), kc, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// writeContainerdFiles writes the release's own default config with the test machine's adjustments
// (nodetest.DefaultConfig), the CNI bridge network and the test-only shim wrapper (nodetest.WriteShimWrapper).
func (n *Node) writeContainerdFiles() error {
	config, err := nodetest.DefaultConfig(n.cfg.Containerd, n.path("cni/net.d"), n.cfg.Tools.CNIDir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(n.path("etc-containerd/config.toml"), config, 0o644); err != nil {
		return err
	}
	conf, err := json.MarshalIndent(map[string]any{
		"cniVersion": "1.0.0",
		"name":       "kubenode",
		"plugins": []any{map[string]any{
			"type": "bridge", "bridge": "kubenode0", "isGateway": true, "isDefaultGateway": true, "ipMasq": false,
			"ipam": map[string]any{"type": "host-local", "ranges": [][]map[string]string{{{"subnet": PodSubnet}}}, "dataDir": n.path("cni/ipam")},
		}},
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(n.path("cni/net.d/10-kubenode.conflist"), conf, 0o644); err != nil {
		return err
	}
	return nodetest.WriteShimWrapper(n.path("wrapper"), filepath.Join(BinDir, nodetest.ShimName))
}

func (n *Node) writeTunables() error {
	for key, value := range kernelTunables {
		if err := os.WriteFile(n.path("sysctl", strings.ReplaceAll(key, "/", ".")), []byte(value+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeBusConfig is a system bus like a node's, without service activation: EXTERNAL auth, everything allowed
// (the node's only clients are the installer, as root, and the systemd stand-in).
func (n *Node) writeBusConfig() error {
	return os.WriteFile(n.path("dbus.conf"), []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`), 0o644)
}

// binds are the node's mounts over the machine's paths, inside the node's mount namespace only.
func (n *Node) binds() []bind {
	b := []bind{
		{Source: n.path("var"), Target: "/var"},
		{Source: n.path("etc-containerd"), Target: "/etc/containerd"},
		{Source: n.path("opt"), Target: "/opt/containerd"},
		{Source: n.path("run-containerd"), Target: "/run/containerd"},
		{Source: n.path("dbus"), Target: "/run/dbus"},
	}
	for key := range kernelTunables {
		b = append(b, bind{Source: n.path("sysctl", strings.ReplaceAll(key, "/", ".")), Target: "/proc/sys/" + key, File: true})
	}
	return b
}

// createMountPoints leases the bind targets outside /run and /proc on the machine, creating those it lacks (its
// /opt/containerd, say); Stop releases them.
func (n *Node) createMountPoints() error {
	var dirs []string
	for _, b := range n.binds() {
		if !b.File && !strings.HasPrefix(b.Target, "/run/") && !strings.HasPrefix(b.Target, "/proc/") {
			dirs = append(dirs, b.Target)
		}
	}
	var err error
	n.mountPoints, err = mountpoint.Acquire(dirs...)
	return err
}

func (n *Node) startNamespaces(ctx context.Context) error {
	if err := n.createMountPoints(); err != nil {
		return err
	}
	cgroups, err := n.createCgroupRoot()
	if err != nil {
		return err
	}
	n.ns, err = startNamespaces(ctx, n.binds(), cgroups, []string{NodeIP + "/32", KubernetesServiceIP + "/32"})
	return err
}
