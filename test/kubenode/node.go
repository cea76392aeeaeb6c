// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// The node's addresses. They exist only inside the node's network namespace.
const (
	// NodeIP is the node's InternalIP (on lo: the kubelet refuses a loopback node IP, and no dummy interface can
	// be had here) and the API server's advertised address.
	NodeIP = "10.250.0.10"
	// ServiceCIDR holds the Services' ClusterIPs; KubernetesServiceIP is the kubernetes Service's, which pods'
	// in-cluster clients dial. It is an address of the node too: without kube-proxy a ClusterIP leads nowhere,
	// but an address of the node on port 443 is the API server itself.
	ServiceCIDR         = "10.0.0.0/24"
	KubernetesServiceIP = "10.0.0.1"
	// PodSubnet is the CNI bridge's range.
	PodSubnet = "10.244.0.0/24"
	// APIServerPort is the API server's secure port, the kubernetes Service's port.
	APIServerPort = 443
)

// Server is the API server's URL inside the node's network (the node's and the pods' view).
var Server = fmt.Sprintf("https://%s:%d", NodeIP, APIServerPort)

// Config configures a node.
type Config struct {
	// Assets is the folder with etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubelet
	// (KUBEBUILDER_ASSETS, hack/tools/control-plane.sh).
	Assets string
	// Containerd is the node's containerd release (with its own runc shim; runc from Debian).
	Containerd installertest.Containerd
	// Tools are Debian's static busybox and CNI plugins.
	Tools nodetest.Tools
	// DBusDaemon is Debian's dbus-daemon: the node's system bus, on which the systemd stand-in answers.
	DBusDaemon string
	// Images are image tarballs (docker-archive or OCI) imported into the node besides the pause and busybox ones.
	Images []string
	// NodeName is the Node's name; NodeLabels are set by the kubelet at registration (as Gardener's worker
	// labels are).
	NodeName   string
	NodeLabels map[string]string
	// Log receives one line per step with its duration; nil discards.
	Log io.Writer
}

// Node is a running single-node cluster: see the package doc.
type Node struct {
	cfg  Config
	work string
	ns   *namespaces
	pki  *pki
	// Procs are the node's components by name, for their logs.
	procs      map[string]*process
	containerd *process
	standin    *systemdStandIn
	cgroupRoot string
	// mountPoints is the node's lease on its bind targets on the machine (package mountpoint).
	mountPoints  *mountpoint.Lease
	admin        keyPair
	restConfig   *rest.Config
	client       client.Client
	started      time.Time
	containerdUp int
}

// Start brings a node up: its namespaces, the control plane, containerd with the images, the system bus with the
// systemd stand-in, and the kubelet, and waits until the Node is Ready. On error everything started is stopped.
func Start(ctx context.Context, cfg Config) (_ *Node, err error) {
	if cfg.NodeName == "" {
		cfg.NodeName = "node-1"
	}
	n := &Node{cfg: cfg, procs: map[string]*process{}, started: time.Now()}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Stop())
		}
	}()
	if n.work, err = os.MkdirTemp("", "kubenode-"); err != nil {
		return nil, err
	}
	for _, step := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"node files and certificates", n.writeFiles},
		{"namespaces", n.startNamespaces},
		{"etcd and kube-apiserver started", n.startAPIServer},
		{"containerd " + cfg.Containerd.Version + " with images", n.startContainerdWithImages},
		{"API server ready", n.waitAPIServer},
		{"controller-manager, scheduler, system bus", n.startControllers},
		{"kubelet, Node Ready", n.startKubelet},
		{"service accounts and root CA published", n.waitControllers},
	} {
		t0 := time.Now()
		if err := step.run(ctx); err != nil {
			return nil, fmt.Errorf("node %s: %s: %w", cfg.NodeName, step.name, err)
		}
		n.logf("%-45s %6.1fs", step.name, time.Since(t0).Seconds())
	}
	return n, nil
}

func (n *Node) logf(format string, args ...any) {
	if n.cfg.Log != nil {
		fmt.Fprintf(n.cfg.Log, "[kubenode] "+format+"\n", args...)
	}
}

// path is a path in the node's work directory (on the machine; visible inside the node at the same path).
func (n *Node) path(p ...string) string { return filepath.Join(append([]string{n.work}, p...)...) }

// RESTConfig is an admin config for the node's API server, dialling into the node's network.
func (n *Node) RESTConfig() *rest.Config { return rest.CopyConfig(n.restConfig) }

// Client is an admin client of the node's API server (core, apps and Gardener's extension types).
func (n *Node) Client() client.Client { return n.client }

// Dial dials addr (an IP literal) inside the node's network.
func (n *Node) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return n.ns.dial(ctx, network, addr)
}

// CA is the cluster's CA bundle (the API server's serving certificate and the clients' certificates are its).
func (n *Node) CA() ([]byte, error) { return os.ReadFile(n.pki.CAFile) }

// Listen opens a listener on addr (an IP literal) inside the node's network: what the node's kube-proxy would serve
// for a Service's port, the test serves there.
func (n *Node) Listen(network, addr string) (net.Listener, error) { return n.ns.listen(network, addr) }

// NetCommand runs argv (kubectl, helm: programs of the machine) inside the node's network only, so that it
// reaches Server.
func (n *Node) NetCommand(ctx context.Context, argv ...string) *exec.Cmd {
	return n.ns.netnsenter(ctx, argv...)
}

// Name is the Node's name.
func (n *Node) Name() string { return n.cfg.NodeName }

// AdminKubeconfig writes an admin kubeconfig for Server (usable inside the node's network: NetCommand) and returns
// its path.
func (n *Node) AdminKubeconfig() (string, error) {
	path := n.path("admin.kubeconfig")
	data, err := n.pki.kubeconfig(Server, n.admin)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o600)
}

// Kubeconfig returns a kubeconfig of the user cn in the groups orgs for Server, with everything embedded: the
// shoot access secret's content, for clients inside the node's network (pods).
func (n *Node) Kubeconfig(name, cn string, orgs ...string) ([]byte, error) {
	kp, err := n.pki.client(name, cn, orgs...)
	if err != nil {
		return nil, err
	}
	return n.pki.kubeconfig(Server, kp)
}

// ContainerdStarts counts containerd's starts (the first included): each restart the installer asked for adds one.
func (n *Node) ContainerdStarts() int { return n.containerdUp }

// LogTail returns the last lines of a component's log ("kubelet", "containerd", "kube-apiserver", ...).
func (n *Node) LogTail(component string, lines int) string {
	if p := n.procs[component]; p != nil {
		return p.logTail(lines)
	}
	return "(no " + component + " in this node)"
}

// HostPath is where the node path p (under /var, /etc/containerd, /opt/containerd, /run/containerd or
// /run/dbus) lies on the machine, for reading what the installer wrote on the node.
func (n *Node) HostPath(p string) string {
	for _, b := range n.binds() {
		if !b.File && (p == b.Target || strings.HasPrefix(p, b.Target+"/")) {
			return filepath.Join(b.Source, strings.TrimPrefix(p, b.Target))
		}
	}
	return ""
}

// Log returns a component's whole log ("kubelet", "containerd", ...), "" when it has none.
func (n *Node) Log(component string) string {
	p := n.procs[component]
	if p == nil {
		return ""
	}
	data, _ := os.ReadFile(p.LogFile)
	return string(data)
}
