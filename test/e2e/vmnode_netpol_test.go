// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/vmnode"
)

// enforcementWait bounds the wait for the node's NetworkPolicy enforcer to judge the probes' connections: it starts,
// lists the policies and pods, writes its nftables rules; the probes try every 2 s.
const enforcementWait = 3 * time.Minute

// tenantsRefused proves, with a real NetworkPolicy implementation on the node's kernel (SIG Network's
// kube-network-policies, nftables and nfqueue), who reaches the node's metric server: a tenant's gVisor pod in its own
// namespace is refused, while the pod standing in for Gardener's VPN (vpn-shoot's labels in kube-system, where the
// shoot API server's proxied scrape enters the shoot network, masqueraded to that pod's address) is let in by
// Gardener's own gardener.cloud--allow-from-seed, built by Gardener's vpn-shoot component. Before the enforcer starts
// both reach the server, so the refusal is the policy's, not the network's; the installation pod stays Ready (its
// kubelet's probes come from its node).
func (g *gardenersNode) tenantsRefused(ctx context.Context, t *testing.T) {
	t.Helper()
	c := g.seed.Client()
	server, err := e2e.InstallationPod(ctx, c, g.shoot.Worker.Name, vmNodeName, g.vm.Bound(time.Minute), withMetricServer)
	testutil.Must(t, err)
	url := fmt.Sprintf("%s:%d", server.Status.PodIP, render.MetricServerPort)
	shoot, err := g.shoot.GardenerShoot()
	testutil.Must(t, err)
	vpn := gardenerfixtures.VPNShoot(shoot)
	testutil.Must(t, c.Create(ctx, vpn.AllowFromSeed))
	tenantNamespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-b"}}
	testutil.Must(t, c.Create(ctx, tenantNamespace))

	probe := func(namespace, name string, labels map[string]string, runtimeClass *string) *corev1.Pod {
		p := e2e.ShootOwnerPod(namespace, name, runtimeClass)
		p.Labels = labels
		p.Spec.NodeName = vmNodeName
		// busybox's nc (its static wget crashes in getaddrinfo): an answer within 3 s, or none.
		p.Spec.Containers[0].Command = []string{"sh", "-c", fmt.Sprintf(`while true; do
if printf 'GET /metrics HTTP/1.0\r\n\r\n' | nc -w 3 %s %d 2>/dev/null | grep -q '^HTTP/1.[01] 200'; then echo reached; else echo refused; fi
sleep 2; done`, server.Status.PodIP, render.MetricServerPort)}
		return p
	}
	vpnPod := probe("kube-system", "vpn-shoot-stand-in", vpn.PodLabels, nil)
	tenant := probe(tenantNamespace.Name, "tenant-gvisor", nil, new("gvisor"))
	for _, p := range []*corev1.Pod{vpnPod, tenant} {
		_, err := e2e.RunPod(ctx, g.seed, p, "reached", g.vm.Bound(5*time.Minute))
		testutil.Must(t, err)
	}
	defer func() {
		for _, obj := range []client.Object{vpnPod, tenant, tenantNamespace, vpn.AllowFromSeed} {
			_ = c.Delete(context.Background(), obj)
		}
	}()

	g.startNetworkPolicyEnforcer(ctx, t)
	defer g.run(context.Background(), t, "systemctl stop kube-network-policies.service")

	cs, err := kubernetes.NewForConfig(g.seed.RESTConfig())
	testutil.Must(t, err)
	err = e2e.Poll(ctx, g.vm.Bound(enforcementWait), 2*time.Second, "the tenant's gVisor pod refused and Gardener's VPN let in", func() error {
		for _, want := range []struct {
			pod     *corev1.Pod
			outcome string
		}{{tenant, "refused"}, {vpnPod, "reached"}} {
			log, err := cs.CoreV1().Pods(want.pod.Namespace).GetLogs(want.pod.Name, &corev1.PodLogOptions{TailLines: new(int64(3))}).DoRaw(ctx)
			if err != nil {
				return err
			}
			if lines := strings.Fields(string(log)); len(lines) < 3 || slices.ContainsFunc(lines, func(l string) bool { return l != want.outcome }) {
				return fmt.Errorf("%s/%s's last tries: %v, want %s", want.pod.Namespace, want.pod.Name, lines, want.outcome)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("%v\n--- VM node: kube-network-policies ---\n%s", err, g.vm.Journal(ctx, "kube-network-policies", 30))
		return
	}
	testutil.Must(t, c.Get(ctx, client.ObjectKeyFromObject(server), server))
	if err := withMetricServer(server); err != nil {
		t.Errorf("the installation pod under its NetworkPolicy: %v", err)
	}
	t.Logf("metric server %s: the tenant's gVisor pod refused, Gardener's VPN let in", url)
}

// startNetworkPolicyEnforcer runs kube-network-policies on the VM node as a transient systemd unit, with a token of its
// own service account (the RBAC of its install.yaml) in the in-cluster paths and the kubernetes Service's address.
// Gardener's nodes pass bridged pod traffic through netfilter (br_netfilter); the VM loads it here.
func (g *gardenersNode) startNetworkPolicyEnforcer(ctx context.Context, t *testing.T) {
	t.Helper()
	c := g.seed.Client()
	const name = "kube-network-policies"
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"list", "watch"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: metav1.NamespaceSystem}},
	}
	for _, obj := range []client.Object{sa, role, binding} {
		testutil.Must(t, c.Create(ctx, obj))
	}
	token := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}
	testutil.Must(t, c.SubResource("token").Create(ctx, sa, token))
	ca, err := g.seed.CA()
	testutil.Must(t, err)
	testutil.Must(t, g.vm.AddFile("netpol/kube-network-policies", realcomponents.NetworkPolicies(t)))
	g.run(ctx, t, fmt.Sprintf(`set -e
install -m 0755 %[1]s/netpol/kube-network-policies /usr/local/bin/kube-network-policies
dir=/var/run/secrets/kubernetes.io/serviceaccount
install -d -m 0700 "$dir"
printf '%%s' '%[2]s' >"$dir/token"
cat >"$dir/ca.crt" <<'CA'
%[3]sCA
modprobe br_netfilter
sysctl -qw net.bridge.bridge-nf-call-iptables=1
systemd-run --unit=kube-network-policies --setenv=KUBERNETES_SERVICE_HOST=%[4]s --setenv=KUBERNETES_SERVICE_PORT=443 \
  /usr/local/bin/kube-network-policies --hostname-override=%[5]s --disable-nri --metrics-bind-address=127.0.0.1:9080 --v=2`,
		vmnode.ShareDir, token.Status.Token, strings.TrimSpace(string(ca))+"\n", kubenode.KubernetesServiceIP, vmNodeName))
}
