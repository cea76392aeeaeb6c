// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodelabeltest runs the readiness gate (docs/readiness-gate.md) as it runs in a shoot, for tests: a real
// kube-apiserver (envtest, KUBEBUILDER_ASSETS) with RBAC and the ServiceAccount admission plugin, the objects
// pkg/render renders with the gate on, nodes, and the installation pod the rendered DaemonSet would put on a node,
// with the pod-bound service account token kubelet would mount into it. The tests of pkg/nodelabel (the policy) and
// pkg/installer (install/uninstall --label-node) share it, so both test against the same shoot.
package nodelabeltest

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

const (
	// PolicyName is the ValidatingAdmissionPolicy of the RuntimeClass chart that confines the installers.
	PolicyName = "gvisor-node-ready-label"
	// PoolLabel is Gardener's label of a node's worker pool.
	PoolLabel = v1beta1constants.LabelWorkerPool
)

// APIServer is a real etcd + kube-apiserver with RBAC, the ServiceAccount admission plugin (envtest switches it off
// by default; kubelet-created pods get their token volume from it) and ValidatingAdmissionPolicy, on by default
// since 1.30.
type APIServer struct {
	Config *rest.Config // admin (system:masters)
	Admin  kubernetes.Interface
}

// StartAPIServer starts it and stops it when the test ends.
func StartAPIServer(t testing.TB) *APIServer {
	t.Helper()
	env := &envtest.Environment{
		BinaryAssetsDirectory:    realcomponents.KubebuilderAssets(t),
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	env.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping kube-apiserver: %v", err)
		}
	})
	// No client-side throttling: tests send bursts of requests on purpose.
	cfg.QPS, cfg.Burst = 1000, 1000
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &APIServer{Config: cfg, Admin: admin}
}

// TokenConfig returns a connection that authenticates only with token (no client certificate).
func (s *APIServer) TokenConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            s.Config.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.Config.CAData},
		QPS:             1000,
		Burst:           1000,
	}
}

// RequestToken asks the TokenRequest API for a token of service account kube-system/sa, bound to pod if it is
// not nil, as kubelet does for the token it mounts.
func (s *APIServer) RequestToken(ctx context.Context, t testing.TB, sa string, pod *corev1.Pod) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	if pod != nil {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	}
	resp, err := s.Admin.CoreV1().ServiceAccounts("kube-system").CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for service account kube-system/%s: %v", sa, err)
	}
	return resp.Status.Token
}

// ApplyRendered creates every object pkg/render renders with the readiness gate on for the pools' ContainerRuntimes,
// as gardener-resource-manager would in a shoot: the RuntimeClass chart once and one installation chart per pool.
func (s *APIServer) ApplyRendered(ctx context.Context, t testing.TB, pools ...string) {
	t.Helper()
	images, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.New(images)
	if err != nil {
		t.Fatal(err)
	}
	// What the controller renders, with the gate on, for the pools' ContainerRuntimes as gardenlet writes them.
	var crs []*extensionsv1alpha1.ContainerRuntime
	for _, pool := range pools {
		crs = append(crs, gardenerfixtures.ContainerRuntime(gardenerfixtures.Namespace(shoot(pool)), pool, nil, ""))
	}
	out, err := r.Shoot(render.Settings{ReadinessGate: true}, render.ShootInput{ContainerRuntimes: crs, KubernetesVersion: kubernetesVersion})
	if err != nil {
		t.Fatal(err)
	}
	m := out.RuntimeClass
	for _, p := range out.Pools {
		m = m.Append(p.Installation)
	}
	c, err := client.New(s.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range m.Objects() {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("creating rendered %s %s: %v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
}

// CreateNode creates node name of gVisor pool pool with the labels gardenlet gives its machines and a taint (the
// installation tolerates every taint).
func (s *APIServer) CreateNode(ctx context.Context, t testing.TB, name, pool string) {
	t.Helper()
	node := gardenerfixtures.Node(shoot(pool), pool, name)
	node.Spec.Taints = []corev1.Taint{{Key: "example.com/dedicated", Value: "gvisor", Effect: corev1.TaintEffectNoSchedule}}
	if _, err := s.Admin.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// StartInstaller creates the pod the pool's rendered DaemonSet runs on node (as the DaemonSet controller and
// scheduler would) and returns the connection the installer in it has: the pod-bound token kubelet mounts.
func (s *APIServer) StartInstaller(ctx context.Context, t testing.TB, pool, node string) *rest.Config {
	t.Helper()
	ds, err := s.Admin.AppsV1().DaemonSets("kube-system").Get(ctx, "gvisor-installation-"+pool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.Admin.CoreV1().Pods("kube-system").Create(ctx, PodFor(ds, node), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the installation pod from the rendered DaemonSet: %v", err)
	}
	if !HasTokenVolume(pod) {
		t.Errorf("pod %s has no service account token volume: the installer could not authenticate", pod.Name)
	}
	return s.TokenConfig(s.RequestToken(ctx, t, pod.Spec.ServiceAccountName, pod))
}

// PodFor is the pod of ds on node.
func PodFor(ds *appsv1.DaemonSet, node string) *corev1.Pod {
	spec := *ds.Spec.Template.Spec.DeepCopy()
	spec.NodeName = node
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels},
		Spec:       spec,
	}
}

// HasTokenVolume reports whether the ServiceAccount admission plugin gave the pod the projected token volume that
// kubelet fills.
func HasTokenVolume(pod *corev1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				return true
			}
		}
	}
	return false
}

// WaitForPolicy waits until kube-apiserver enforces the freshly created policy and RBAC (both are loaded through
// informers): a dry-run patch of another label on node, with the installer's connection cfg, must be denied by the
// policy. Dry run goes through admission but never changes the node.
func WaitForPolicy(ctx context.Context, t testing.TB, cfg *rest.Config, node string) {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, last = c.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(`{"metadata":{"labels":{"probe":"x"}}}`),
			metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.Contains(last.Error(), PolicyName), nil
	})
	if err != nil {
		t.Fatalf("the ValidatingAdmissionPolicy never took effect; last answer to a dry-run patch: %v", last)
	}
}

// NodeLabels returns the labels of node name.
func (s *APIServer) NodeLabels(ctx context.Context, t testing.TB, name string) map[string]string {
	t.Helper()
	n, err := s.Admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n.Labels
}

// kubernetesVersion is the shoot's: one with ValidatingAdmissionPolicy, so the readiness gate renders.
const kubernetesVersion = "1.33.4"

// shoot is a shoot with gVisor on pool, for gardenlet's objects of that pool.
func shoot(pool string) *gardencorev1beta1.Shoot {
	return gardenerfixtures.Shoot("nodelabel", "test", kubernetesVersion, gardenerfixtures.Worker(pool, gardenerfixtures.GVisor(nil)))
}
