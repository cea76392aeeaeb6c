// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// The node's place in QEMU's user-mode network (the package doc).
const (
	// GuestIP is the guest's address, the Node's InternalIP: the API server reaches the kubelet there when
	// Config.Forward forwards KubeletPort from ForwardAddress GuestIP in Config.Network.
	GuestIP = "10.0.2.15"
	// HostIP is where the guest reaches Config.Network's loopback: the API server.
	HostIP = "10.0.2.2"
	// KubeletPort is the kubelet's port: not the default 10250, which a kubelet in Config.Network (a kubenode's)
	// holds on every address there; the Node's status names it for the API server.
	KubeletPort = 10350
)

// Join says how the node's kubelet joins a cluster whose API server listens on Config.Network's loopback.
type Join struct {
	// Kubelet is the kubelet's binary (KUBEBUILDER_ASSETS, hack/tools/control-plane.sh).
	Kubelet string
	// Kubeconfig holds the node's client credentials (CN system:node:<NodeName>, O system:nodes) and the cluster's
	// CA; its server's host is kept as the TLS server name, its address becomes HostIP with the same port.
	Kubeconfig []byte
	// NodeName is the Node's name; Labels are set by the kubelet at registration (--node-labels), as Gardener's
	// kubelets set the worker pool's.
	NodeName string
	Labels   map[string]string
	// ServiceIP is the kubernetes Service's ClusterIP: the node forwards its port 443 to the API server, as a
	// node's kube-proxy would, so that pods' in-cluster clients reach it.
	ServiceIP string
}

// kubeletConfig is the kubelet configuration of Gardener's nodes in what matters here: the systemd cgroup driver,
// QoS cgroups below kubepods.slice, webhook authentication and authorization, containerd's CRI socket; cgroup v1
// allowed (Config.CgroupV1), as on SUSE CHost.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
port: %d
cgroupDriver: systemd
failCgroupV1: false
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failSwapOn: false
resolvConf: ""
clusterDomain: cluster.local
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%%, imagefs.available: 1%%, nodefs.inodesFree: 1%%}
serializeImagePulls: false
nodeStatusUpdateFrequency: 5s
syncFrequency: 10s
`

// kubeletUnit runs the kubelet as a Gardener node's kubelet.service does: after containerd, restarted always, and
// started at every boot.
const kubeletUnit = `[Unit]
Description=kubelet
After=containerd.service
Wants=containerd.service

[Service]
ExecStart=/usr/local/bin/kubelet --config=/var/lib/kubelet/config.yaml --kubeconfig=/var/lib/kubelet/kubeconfig --hostname-override=%s --node-ip=%s --node-labels=%s --v=2
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
`

// serviceDNATUnit is the node's stand-in for kube-proxy's one rule that matters here: the kubernetes Service's
// ClusterIP port 443 leads to the API server. It runs at every boot, before the kubelet.
const serviceDNATUnit = `[Unit]
Description=kubernetes Service to the API server (kube-proxy's rule for it)
Before=kubelet.service
After=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/iptables -t nat -A PREROUTING -d %[1]s/32 -p tcp --dport 443 -j DNAT --to-destination %[2]s
ExecStart=/usr/sbin/iptables -t nat -A OUTPUT -d %[1]s/32 -p tcp --dport 443 -j DNAT --to-destination %[2]s

[Install]
WantedBy=multi-user.target
`

// JoinCluster installs the kubelet with its configuration and units and starts it; the caller waits for the Node.
func (n *Node) JoinCluster(ctx context.Context, j Join) error {
	t0 := time.Now()
	kubeconfig, port, err := guestKubeconfig(j.Kubeconfig)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.Load(j.Kubeconfig)
	if err != nil {
		return err
	}
	ca := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].CertificateAuthorityData
	labels := make([]string, 0, len(j.Labels))
	for k, v := range j.Labels {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	files := map[string][]byte{
		"kubelet/kubeconfig":      kubeconfig,
		"kubelet/ca.crt":          ca,
		"kubelet/config.yaml":     fmt.Appendf(nil, kubeletConfig, KubeletPort),
		"kubelet/kubelet.service": fmt.Appendf(nil, kubeletUnit, j.NodeName, GuestIP, strings.Join(labels, ",")),
		"kubelet/kubernetes-service.service": fmt.Appendf(nil, serviceDNATUnit, j.ServiceIP,
			net.JoinHostPort(HostIP, port)),
	}
	for name, data := range files {
		if err := n.writeShare(name, data); err != nil {
			return err
		}
	}
	if err := n.AddFile("kubelet/kubelet", j.Kubelet); err != nil {
		return err
	}
	script := `
install -m 0755 /mnt/host/kubelet/kubelet /usr/local/bin/kubelet
install -d -m 0700 /var/lib/kubelet /etc/kubernetes/pki
install -m 0600 /mnt/host/kubelet/kubeconfig /var/lib/kubelet/kubeconfig
install -m 0644 /mnt/host/kubelet/config.yaml /var/lib/kubelet/config.yaml
install -m 0644 /mnt/host/kubelet/ca.crt /etc/kubernetes/pki/ca.crt
install -m 0644 /mnt/host/kubelet/kubelet.service /mnt/host/kubelet/kubernetes-service.service /etc/systemd/system/
systemctl daemon-reload
systemctl enable --now kubernetes-service.service kubelet.service 2>&1
`
	if out, err := n.Run(ctx, script); err != nil {
		return fmt.Errorf("starting the VM node's kubelet: %w\n%s", err, out)
	}
	n.logf("kubelet installed and started in %.1fs", time.Since(t0).Seconds())
	return nil
}

// guestKubeconfig points kubeconfig at HostIP (the guest's way to the API server), keeping the server's host as
// the TLS server name its certificate is for; it returns the API server's port.
func guestKubeconfig(kubeconfig []byte) ([]byte, string, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, "", fmt.Errorf("the VM node's kubeconfig: %w", err)
	}
	for name, c := range cfg.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			return nil, "", fmt.Errorf("the VM node's kubeconfig, cluster %s: %w", name, err)
		}
		port := u.Port()
		if port == "" {
			port = "443"
		}
		c.TLSServerName = u.Hostname()
		c.Server = "https://" + net.JoinHostPort(HostIP, port)
		data, err := clientcmd.Write(*cfg)
		return data, port, err
	}
	return nil, "", fmt.Errorf("the VM node's kubeconfig has no cluster")
}

// writeShare writes data into the node's share as name.
func (n *Node) writeShare(name string, data []byte) error {
	dst := filepath.Join(n.share, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
