// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"slices"
	"strconv"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// The readiness gate's behaviour (what the policy allows and denies) is tested on a real kube-apiserver in
// pkg/nodelabel with exactly these rendered objects; here the objects themselves are checked.

var (
	gvisorLabels = map[string]string{"app.kubernetes.io/name": "gvisor", "app.kubernetes.io/managed-by": "gardener-extension-runtime-gvisor"}
	poolValues   = render.InstallationValues{
		WorkerPool: "gvisor", BinaryPath: "/var/bin/containerruntimes",
		NodeSelector: map[string]string{"worker.gardener.cloud/pool": "gvisor"},
		ConfigFlags:  map[string]string{"net-raw": "true"},
	}
)

// TestReadinessGateOffRendersNothingOfIt: the default output has no trace of the gate (the snapshots, unchanged
// since before the gate existed, check the bytes).
func TestReadinessGateOffRendersNothingOfIt(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	rc, err := r.RuntimeClass(render.RuntimeClassValues{})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := r.Installation(poolValues)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, obj := range rc.Append(inst).Objects() {
		kinds = append(kinds, obj.GetObjectKind().GroupVersionKind().Kind)
		switch o := obj.(type) {
		case *nodev1.RuntimeClass:
			if _, ok := o.Scheduling.NodeSelector[nodelabel.Key]; ok {
				t.Errorf("RuntimeClass selects %s with the gate off", nodelabel.Key)
			}
		case *appsv1.DaemonSet:
			spec := o.Spec.Template.Spec
			if spec.ServiceAccountName != "" || spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
				t.Errorf("gate off: serviceAccountName %q, automountServiceAccountToken %v; want none and false",
					spec.ServiceAccountName, spec.AutomountServiceAccountToken)
			}
			if c := installerContainer(o); slices.Contains(c.Command, "--label-node") || len(c.Env) > 0 {
				t.Errorf("gate off: installer command %v, env %v; want no --label-node and no env", c.Command, c.Env)
			}
		}
	}
	if diff := cmp.Diff([]string{"RuntimeClass", "ConfigMap", "DaemonSet", "NetworkPolicy"}, kinds); diff != "" {
		t.Errorf("kinds with the gate off (-want +got):\n%s", diff)
	}
}

func TestReadinessGateRuntimeClassChart(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	for _, tt := range []struct {
		name         string
		nodeSelector map[string]string
		want         map[string]string
	}{
		{"Gardener's label", nil, map[string]string{"containerruntime.worker.gardener.cloud/gvisor": "true", nodelabel.Key: nodelabel.Value}},
		{"own selector", map[string]string{"example.com/sandbox": "gvisor"}, map[string]string{"example.com/sandbox": "gvisor", nodelabel.Key: nodelabel.Value}},
		{"own selector cannot switch the gate's label off", map[string]string{nodelabel.Key: "false"}, map[string]string{nodelabel.Key: nodelabel.Value}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.RuntimeClass(render.RuntimeClassValues{NodeSelector: tt.nodeSelector, ReadinessGate: true})
			if err != nil {
				t.Fatal(err)
			}
			want := []client.Object{expectedRuntimeClass(tt.want, nil, nil), expectedPolicy(), expectedPolicyBinding(), expectedClusterRole()}
			ignoreCEL := cmpopts.IgnoreFields(admissionregistrationv1.ValidatingAdmissionPolicySpec{}, "Variables", "Validations")
			if diff := cmp.Diff(want, m.Objects(), ignoreCEL); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			wantKeys := []string{
				"clusterrole____gvisor-installation_node-ready-label.yaml", "runtimeclass____gvisor.yaml",
				"validatingadmissionpolicy____gvisor-node-ready-label.yaml", "validatingadmissionpolicybinding____gvisor-node-ready-label.yaml",
			}
			if diff := cmp.Diff(wantKeys, keys(m.Files())); diff != "" {
				t.Errorf("Files() keys (-want +got):\n%s", diff)
			}
			checkPolicyCEL(t, m)
		})
	}
}

// checkPolicyCEL checks what a reader of the policy relies on beyond the behaviour test: the label is the one
// package nodelabel sets, and every denial is a 403 like RBAC's.
func checkPolicyCEL(t *testing.T, m *render.Manifests) {
	t.Helper()
	for _, obj := range m.Objects() {
		p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		if !ok {
			continue
		}
		if got, want := p.Spec.Variables[0], (admissionregistrationv1.Variable{Name: "label", Expression: "'" + nodelabel.Key + "'"}); got != want {
			t.Errorf("first variable = %+v, want %+v", got, want)
		}
		// The managedFields rule lets the installer's own entry through by its field manager name.
		manager := ""
		for _, v := range p.Spec.Variables {
			if v.Name == "manager" {
				manager = v.Expression
			}
		}
		if want := "'" + nodelabel.FieldManager + "'"; manager != want {
			t.Errorf("variable manager = %q, want %q (nodelabel.FieldManager)", manager, want)
		}
		if len(p.Spec.Validations) != 6 {
			t.Errorf("%d validations, want 6 (operation, own node, other labels, value, rest of the Node, managedFields)", len(p.Spec.Validations))
		}
		for i, v := range p.Spec.Validations {
			if v.Reason == nil || *v.Reason != metav1.StatusReasonForbidden || v.Message == "" {
				t.Errorf("validation %d: reason %v, message %q; want Forbidden and a message", i, v.Reason, v.Message)
			}
		}
	}
}

func TestReadinessGateInstallationChart(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	v := poolValues
	v.ReadinessGate = true
	m, err := r.Installation(v)
	if err != nil {
		t.Fatal(err)
	}
	runscToml := "[runsc_config]\n  net-raw = \"true\"\n"
	ds := expectedDaemonSet(dsParams{pool: "gvisor", image: pinnedImage(t), binaryPath: "/var/bin/containerruntimes",
		runscToml: runscToml, nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}})
	withReadinessGate(ds)
	want := []client.Object{
		gateServiceAccount(), gateClusterRoleBinding(),
		expectedConfigMap("gvisor", runscToml),
		ds,
		expectedNetworkPolicy("gvisor"),
	}
	if diff := cmp.Diff(want, m.Objects(), quantityEqual); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestShootOptionsReadinessGate: ShootOptions switch the gate on for both charts together, so the installers'
// ClusterRoleBindings never point to a role that was not rendered.
func TestShootOptionsReadinessGate(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	for _, on := range []bool{false, true} {
		t.Run("readinessGate="+strconv.FormatBool(on), func(t *testing.T) {
			m, err := renderShoot(r, render.Settings{ReadinessGate: on}, false, containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for key := range m.Files() {
				got = append(got, key)
			}
			slices.Sort(got)
			want := []string{
				"configmap__kube-system__gvisor-installation-gvisor-a-runsc.yaml", "configmap__kube-system__gvisor-installation-gvisor-b-runsc.yaml",
				"daemonset__kube-system__gvisor-installation-gvisor-a.yaml", "daemonset__kube-system__gvisor-installation-gvisor-b.yaml",
				"networkpolicy__kube-system__gvisor-installation-gvisor-a.yaml", "networkpolicy__kube-system__gvisor-installation-gvisor-b.yaml",
				"runtimeclass____gvisor.yaml",
			}
			if on {
				want = append(want,
					"clusterrole____gvisor-installation_node-ready-label.yaml",
					"clusterrolebinding____gvisor-installation_node-ready-label_gvisor-a.yaml",
					"clusterrolebinding____gvisor-installation_node-ready-label_gvisor-b.yaml",
					"serviceaccount__kube-system__gvisor-installation-gvisor-a.yaml", "serviceaccount__kube-system__gvisor-installation-gvisor-b.yaml",
					"validatingadmissionpolicy____gvisor-node-ready-label.yaml", "validatingadmissionpolicybinding____gvisor-node-ready-label.yaml",
				)
				slices.Sort(want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func expectedClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label", Labels: gvisorLabels},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"patch"}}},
	}
}

// expectedPolicy is the policy without its CEL (variables and validations), which checkPolicyCEL and the
// behaviour test in pkg/nodelabel cover.
func expectedPolicy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label", Labels: gvisorLabels},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
					Rule: admissionregistrationv1.Rule{
						APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"nodes", "nodes/*"},
					},
				},
			}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "gvisor-installation-service-account",
				Expression: "request.userInfo.username.startsWith('system:serviceaccount:kube-system:gvisor-installation-')",
			}},
		},
	}
}

func expectedPolicyBinding() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label", Labels: gvisorLabels},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "gvisor-node-ready-label",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}

// withReadinessGate changes an expected installation DaemonSet of pool "gvisor" the way the readiness gate does:
// the pool's service account and its token (mounted in the installer alone, not automounted), --label-node and
// NODE_NAME from the downward API.
func withReadinessGate(ds *appsv1.DaemonSet) {
	spec := &ds.Spec.Template.Spec
	spec.ServiceAccountName = "gvisor-installation-gvisor"
	c := installerContainer(ds)
	c.Command = append(c.Command, "--label-node")
	c.Env = []corev1.EnvVar{{Name: nodelabel.NodeNameEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"},
	}}}
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "api-token", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "api-token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3600)}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}},
			}}},
		},
	}}})
}

// gateServiceAccount is the expected ServiceAccount of pool "gvisor" with the gate on (its token is mounted by
// the pod, not automatically).
func gateServiceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:                     metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta:                   metav1.ObjectMeta{Name: "gvisor-installation-gvisor", Namespace: "kube-system", Labels: selectorLabels("gvisor")},
		AutomountServiceAccountToken: ptr.To(false),
	}
}

// gateClusterRoleBinding is the expected binding of pool "gvisor"'s ServiceAccount to the node-label ClusterRole.
func gateClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label:gvisor", Labels: selectorLabels("gvisor")},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "gvisor-installation:node-ready-label"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "gvisor-installation-gvisor", Namespace: "kube-system"}},
	}
}

// TestReadinessGateVersionFloor: the gate is rendered only when the operator asks for it, the delivery mode is
// DaemonSet and the shoot runs Kubernetes 1.30 or later; otherwise ShootObjects says why it is off.
func TestReadinessGateVersionFloor(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	for _, tc := range []struct {
		enabled bool
		mode    delivery.Mode
		version string
		want    bool
	}{
		{false, "", "1.35.0", false},
		{true, "", "1.35.0", true},
		{true, delivery.DaemonSet, "1.30.0", true},
		{true, "", "1.30.14", true},
		{true, "", "1.29.15", false},
		{true, "", "1.27.0", false},
		{true, "", "", false},
		{true, "", "not-a-version", false},
		{true, delivery.OperatingSystemConfig, "1.35.0", false},
	} {
		out, err := r.Shoot(render.Settings{ReadinessGate: tc.enabled, DeliveryMode: tc.mode},
			render.ShootInput{ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", "")}, KubernetesVersion: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		if out.ReadinessGate != tc.want || (out.ReadinessGateOff != "") != (tc.enabled && !tc.want) {
			t.Errorf("gate %v, mode %q, shoot %q: gate %v (%q), want %v", tc.enabled, tc.mode, tc.version, out.ReadinessGate, out.ReadinessGateOff, tc.want)
		}
		if _, gated := out.RuntimeClass.Files()["validatingadmissionpolicy____gvisor-node-ready-label.yaml"]; gated != tc.want {
			t.Errorf("gate %v, shoot %q: admission policy rendered %v, want %v (%v)", tc.enabled, tc.version, gated, tc.want, keys(out.RuntimeClass.Files()))
		}
	}
}
