// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
)

// start starts a component and records it for LogTail and Stop.
func (n *Node) start(name string, env []string, argv ...string) (*process, error) {
	p, err := n.ns.startProcess(name, n.path("logs", name+".log"), env, argv...)
	if err != nil {
		return nil, err
	}
	n.procs[name] = p
	return p, nil
}

func (n *Node) asset(name string) string { return filepath.Join(n.cfg.Assets, name) }

// Kubectl is the kubectl CLI of the node's Kubernetes release (hack/tools/control-plane.sh builds it beside the
// control plane), for NetCommand.
func (n *Node) Kubectl() string { return n.asset("kubectl") }

// startAPIServer starts etcd and kube-apiserver; waitAPIServer waits for them (containerd starts meanwhile).
func (n *Node) startAPIServer(context.Context) error {
	if _, err := n.start("etcd", nil, n.asset("etcd"), "--data-dir", n.path("etcd"), "--name", "kubenode",
		"--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
		"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
		"--initial-cluster", "kubenode=http://127.0.0.1:2380", "--unsafe-no-fsync", "--log-level", "warn"); err != nil {
		return err
	}
	pki := func(f string) string { return filepath.Join(n.pki.dir, f) }
	_, err := n.start("kube-apiserver", nil, n.asset("kube-apiserver"),
		"--etcd-servers=http://127.0.0.1:2379",
		"--bind-address=0.0.0.0", fmt.Sprintf("--secure-port=%d", APIServerPort), "--advertise-address="+NodeIP,
		"--service-cluster-ip-range="+ServiceCIDR,
		"--tls-cert-file="+pki("kube-apiserver.crt"), "--tls-private-key-file="+pki("kube-apiserver.key"),
		"--client-ca-file="+n.pki.CAFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pki("sa.pub"), "--service-account-signing-key-file="+pki("sa.key"),
		"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction", "--allow-privileged=true",
		"--kubelet-client-certificate="+pki("kube-apiserver-kubelet-client.crt"),
		"--kubelet-client-key="+pki("kube-apiserver-kubelet-client.key"),
		// Without it, logs and exec look the node's name up in DNS.
		"--kubelet-preferred-address-types=InternalIP,Hostname",
		// No kube-proxy runs here: webhooks' Services (the extension's OperatingSystemConfig webhook) are reached
		// at their endpoints, the pods' addresses on the node's CNI bridge.
		"--enable-aggregator-routing=true",
		"--profiling=false", "--enable-priority-and-fairness=false")
	return err
}

// waitAPIServer waits until the API server answers /readyz to the admin, dialling into the node, and builds the
// admin client.
func (n *Node) waitAPIServer(ctx context.Context) error {
	n.restConfig = &rest.Config{
		Host: Server,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: n.pki.CAFile, CertFile: n.admin.Cert, KeyFile: n.admin.Key,
		},
		Dial: n.ns.dial, QPS: 100, Burst: 200,
	}
	hc, err := rest.HTTPClientFor(n.restConfig)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if err := n.procs["kube-apiserver"].exitErr(); err != nil {
			return fmt.Errorf("%w\n%s", err, n.LogTail("kube-apiserver", 30))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, Server+"/readyz", nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready within 90s (%v)\n%s", err, n.LogTail("kube-apiserver", 30))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building the admin client's scheme: %w", err)
	}
	n.client, err = client.New(n.restConfig, client.Options{Scheme: scheme})
	return err
}

// startControllers starts kube-controller-manager (service-account tokens, the root CA ConfigMap, DaemonSets,
// Deployments, garbage collection), kube-scheduler and the system bus with the systemd stand-in.
func (n *Node) startControllers(ctx context.Context) error {
	pki := func(f string) string { return filepath.Join(n.pki.dir, f) }
	if _, err := n.start("kube-controller-manager", nil, n.asset("kube-controller-manager"),
		"--kubeconfig="+n.path("kube-controller-manager.kubeconfig"),
		"--root-ca-file="+n.pki.CAFile, "--service-account-private-key-file="+pki("sa.key"),
		"--use-service-account-credentials=true", "--leader-elect=false",
		"--controllers=*", "--node-monitor-grace-period=20s"); err != nil {
		return err
	}
	if _, err := n.start("kube-scheduler", nil, n.asset("kube-scheduler"),
		"--kubeconfig="+n.path("kube-scheduler.kubeconfig"), "--leader-elect=false"); err != nil {
		return err
	}
	return n.startSystemBus(ctx)
}

// waitControllers waits until the controller-manager created what every pod needs: the default ServiceAccount
// (the ServiceAccount admission refuses pods without it) and the kube-root-ca.crt ConfigMap (projected
// service-account volumes read it), in default and kube-system.
func (n *Node) waitControllers(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for _, ns := range []string{"default", "kube-system"} {
		for _, obj := range []client.Object{&corev1.ServiceAccount{}, &corev1.ConfigMap{}} {
			key := client.ObjectKey{Namespace: ns, Name: "default"}
			if _, ok := obj.(*corev1.ConfigMap); ok {
				key.Name = "kube-root-ca.crt"
			}
			for {
				err := n.client.Get(ctx, key, obj)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%T %s not created within 1m: %w\n%s", obj, key, err, n.LogTail("kube-controller-manager", 20))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	return nil
}
