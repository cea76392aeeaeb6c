// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodelabel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel/nodelabeltest"
)

const (
	// Denial messages of the rendered ValidatingAdmissionPolicy (charts/internal/gvisor).
	denyOtherNode  = "may only label their own node (node-a), not node node-b"
	denyNoNode     = "this token names none"
	denyOtherLabel = "may change no node label but " + nodelabel.Key
	denyValue      = "may only be \"true\" or absent"
	denyRest       = "not its spec (taints, unschedulable)"
	denyOperation  = "may only patch Node objects"
	denyManaged    = "may not change the managedFields of other field managers"
)

// installer is one pool's installation as it runs in a shoot: its service account's pod-bound token, from the
// pod that the rendered DaemonSet would put on node.
type installer struct {
	pool, node string
	cfg        *rest.Config
	nodes      kubernetes.Interface // as the service account, token bound to the pod on node
	label      rest.Interface       // the same, built by nodelabel.NewClient as the installer does
}

// TestReadinessGateOnRealAPIServer applies what pkg/render renders with the readiness gate on (both charts, two
// pools) to a real kube-apiserver and checks, as each pool's installer service account with a pod-bound token,
// that the installer can set and remove the readiness label on its own node and nothing else.
func TestReadinessGateOnRealAPIServer(t *testing.T) {
	s := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	s.ApplyRendered(ctx, t, "pool-a", "pool-b")
	for _, n := range []string{"node-a", "node-b"} {
		createNode(ctx, t, s, n)
	}
	a := startInstaller(ctx, t, s, "pool-a", "node-a")
	b := startInstaller(ctx, t, s, "pool-b", "node-b")
	nodelabeltest.WaitForPolicy(ctx, t, a.cfg, a.node)

	t.Run("token carries the node name", func(t *testing.T) {
		// What the policy relies on: kube-apiserver puts the bound pod's node into the token's user extra
		// (ServiceAccountTokenPodNodeInfo, on by default since 1.30, GA in 1.32).
		review, err := a.nodes.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ui := review.Status.UserInfo
		if want := "system:serviceaccount:kube-system:gvisor-installation-pool-a"; ui.Username != want {
			t.Errorf("username = %q, want %q", ui.Username, want)
		}
		if got := ui.Extra["authentication.kubernetes.io/node-name"]; len(got) != 1 || got[0] != "node-a" {
			t.Errorf("extra authentication.kubernetes.io/node-name = %v, want [node-a]; extra: %v", got, ui.Extra)
		}
	})

	t.Run("set and remove on its own node", func(t *testing.T) {
		before := getNode(ctx, t, s, "node-a")
		for i := 0; i < 2; i++ { // twice: idempotent
			if err := nodelabel.Set(ctx, a.label, "node-a"); err != nil {
				t.Fatalf("Set #%d: %v", i+1, err)
			}
		}
		after := getNode(ctx, t, s, "node-a")
		if got := after.Labels[nodelabel.Key]; got != nodelabel.Value {
			t.Fatalf("label %s = %q after Set, want %q", nodelabel.Key, got, nodelabel.Value)
		}
		assertOnlyLabelChanged(t, before, after)
		for i := 0; i < 2; i++ {
			if err := nodelabel.Remove(ctx, a.label, "node-a"); err != nil {
				t.Fatalf("Remove #%d: %v", i+1, err)
			}
		}
		removed := getNode(ctx, t, s, "node-a")
		if v, ok := removed.Labels[nodelabel.Key]; ok {
			t.Fatalf("label %s = %q after Remove, want it gone", nodelabel.Key, v)
		}
		assertOnlyLabelChanged(t, before, removed)
	})

	t.Run("server-side apply of the label as the installer", func(t *testing.T) {
		// The policy judges managedFields, not the request type: the installer's own server-side apply (field
		// manager gvisor-installer) of the label, and the apply that drops it again, pass like its merge patches.
		before := getNode(ctx, t, s, "node-a")
		for _, labels := range []string{fmt.Sprintf(`,"labels":{%q:"true"}`, nodelabel.Key), ""} {
			body := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a"` + labels + `}}`
			if _, err := a.nodes.CoreV1().Nodes().Patch(ctx, "node-a", types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: nodelabel.FieldManager}); err != nil {
				t.Fatalf("apply %s: %v", body, err)
			}
			if _, set := getNode(ctx, t, s, "node-a").Labels[nodelabel.Key]; set != (labels != "") {
				t.Errorf("after apply %s the label is set = %v", body, set)
			}
		}
		assertOnlyLabelChanged(t, before, getNode(ctx, t, s, "node-a"))
	})

	t.Run("why managedFields matter", func(t *testing.T) {
		// What the managedFields rule prevents, shown with the admin (whom the policy does not restrict): hand the
		// pool label's ownership to a server-side-apply manager whose configuration does not contain it, and that
		// manager's next unchanged re-apply removes the label: the node silently leaves its pool's selectors.
		createNode(ctx, t, s, "node-ssa")
		other := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-ssa","labels":{"example.com/other":"x"}}}`
		apply := func() {
			t.Helper()
			if _, err := s.Admin.CoreV1().Nodes().Patch(ctx, "node-ssa", types.ApplyPatchType, []byte(other), metav1.PatchOptions{FieldManager: "other"}); err != nil {
				t.Fatal(err)
			}
		}
		apply()
		var entries []metav1.ManagedFieldsEntry
		for _, e := range getNode(ctx, t, s, "node-ssa").ManagedFields {
			if e.Manager == "other" {
				e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:example.com/other":{},"f:` + nodelabeltest.PoolLabel + `":{}}}}`)}
				entries = append(entries, e)
			}
		}
		if err := replaceManagedFields(ctx, s.Admin, "node-ssa", entries); err != nil {
			t.Fatal(err)
		}
		apply()
		if got, ok := getNode(ctx, t, s, "node-ssa").Labels[nodelabeltest.PoolLabel]; ok {
			t.Fatalf("the re-apply kept the pool label (%q): the reason for the managedFields rule no longer holds, revisit it and docs/readiness-gate.md", got)
		}

		// The same kind of rewrite as an installer, on its own node, is denied.
		n := getNode(ctx, t, s, "node-a")
		entries = nil
		for _, e := range n.ManagedFields {
			e.Manager += "-moved"
			entries = append(entries, e)
		}
		err := replaceManagedFields(ctx, a.nodes, "node-a", entries)
		assertDenied(t, err, denyManaged)
		assertUnchanged(t, n, getNode(ctx, t, s, "node-a"))
	})

	t.Run("node without any labels", func(t *testing.T) {
		// metadata.labels absent before Set and after Remove: the policy must treat it as an empty map.
		if _, err := s.Admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-bare"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		bare := startInstaller(ctx, t, s, "pool-a", "node-bare")
		if err := nodelabel.Set(ctx, bare.label, "node-bare"); err != nil {
			t.Fatal(err)
		}
		if err := nodelabel.Remove(ctx, bare.label, "node-bare"); err != nil {
			t.Fatal(err)
		}
		if n := getNode(ctx, t, s, "node-bare"); len(n.Labels) != 0 {
			t.Errorf("labels after Set and Remove = %v, want none", n.Labels)
		}
	})

	t.Run("other pool on its own node", func(t *testing.T) {
		// With a clientset's REST client, as a caller that has a clientset anyway would pass.
		if err := nodelabel.Set(ctx, b.nodes.CoreV1().RESTClient(), "node-b"); err != nil {
			t.Fatal(err)
		}
		if err := nodelabel.Remove(ctx, b.nodes.CoreV1().RESTClient(), "node-b"); err != nil {
			t.Fatal(err)
		}
		err := nodelabel.Set(ctx, b.nodes.CoreV1().RESTClient(), "node-a")
		assertDenied(t, err, "may only label their own node (node-b), not node node-a")
	})

	t.Run("Set on another node is denied", func(t *testing.T) {
		err := nodelabel.Set(ctx, a.label, "node-b")
		assertDenied(t, err, denyOtherNode)
		if !strings.Contains(err.Error(), "docs/readiness-gate.md") {
			t.Errorf("error %q does not point to the docs", err)
		}
		if _, ok := getNode(ctx, t, s, "node-b").Labels[nodelabel.Key]; ok {
			t.Error("node-b got the label")
		}
	})

	t.Run("Set and Remove of a node that does not exist", func(t *testing.T) {
		if err := nodelabel.Remove(ctx, a.label, "gone"); err != nil {
			t.Errorf("Remove: %v, want nil (nothing to remove)", err)
		}
		if err := nodelabel.Set(ctx, a.label, "gone"); !apierrors.IsNotFound(err) {
			t.Errorf("Set: %v, want NotFound", err)
		}
	})

	// Raw requests an attacker with the installer's token could send.
	denied := []struct {
		name      string
		node      string
		patchType types.PatchType
		patch     string
		want      string
	}{
		{"another label", "node-a", types.MergePatchType, `{"metadata":{"labels":{"example.com/x":"y"}}}`, denyOtherLabel},
		{"our label and another", "node-a", types.MergePatchType, fmt.Sprintf(`{"metadata":{"labels":{%q:"true","example.com/x":"y"}}}`, nodelabel.Key), denyOtherLabel},
		{"change a pool label", "node-a", types.MergePatchType, `{"metadata":{"labels":{"` + nodelabeltest.PoolLabel + `":"pool-b"}}}`, denyOtherLabel},
		{"remove a pool label", "node-a", types.MergePatchType, `{"metadata":{"labels":{"` + nodelabeltest.PoolLabel + `":null}}}`, denyOtherLabel},
		{"replace all labels by ours", "node-a", types.JSONPatchType, fmt.Sprintf(`[{"op":"replace","path":"/metadata/labels","value":{%q:"true"}}]`, nodelabel.Key), denyOtherLabel},
		{"our label with another value", "node-a", types.MergePatchType, fmt.Sprintf(`{"metadata":{"labels":{%q:"false"}}}`, nodelabel.Key), denyValue},
		{"remove the taints", "node-a", types.StrategicMergePatchType, `{"spec":{"taints":null}}`, denyRest},
		{"add a taint", "node-a", types.JSONPatchType, `[{"op":"add","path":"/spec/taints/-","value":{"key":"x","effect":"NoSchedule"}}]`, denyRest},
		{"cordon", "node-a", types.MergePatchType, `{"spec":{"unschedulable":true}}`, denyRest},
		{"our label and cordon", "node-a", types.MergePatchType, fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}},"spec":{"unschedulable":true}}`, nodelabel.Key), denyRest},
		{"annotation", "node-a", types.MergePatchType, `{"metadata":{"annotations":{"example.com/x":"y"}}}`, denyRest},
		{"finalizer", "node-a", types.MergePatchType, `{"metadata":{"finalizers":["example.com/x"]}}`, denyRest},
		{"our label on another node", "node-b", types.MergePatchType, fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, nodelabel.Key), denyOtherNode},
		{"another label on another node", "node-b", types.MergePatchType, `{"metadata":{"labels":{"example.com/x":"y"}}}`, denyOtherNode},
		// managedFields decide what a server-side-apply manager's next apply removes (see "why managedFields matter").
		{"managedFields: add another manager owning the pool label", "node-a", types.JSONPatchType,
			`[{"op":"add","path":"/metadata/managedFields/-","value":{"manager":"attacker","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:` + nodelabeltest.PoolLabel + `":{}}}}}}]`, denyManaged},
		{"managedFields: reset", "node-a", types.JSONPatchType, `[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]`, denyManaged},
		{"managedFields: drop them all", "node-a", types.MergePatchType, `{"metadata":{"managedFields":[]}}`, denyManaged},
		{"managedFields: own entry claims the pool label", "node-a", types.JSONPatchType,
			`[{"op":"add","path":"/metadata/managedFields/-","value":{"manager":"` + nodelabel.FieldManager + `","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:` + nodelabeltest.PoolLabel + `":{}}}}}}]`, denyManaged},
		{"managedFields: our label, under another manager's name", "node-a", types.MergePatchType, fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, nodelabel.Key), denyManaged},
	}
	attacks := &attackTable{}
	defer attacks.check(t)
	for _, tt := range denied {
		t.Run("denied: "+tt.name, func(t *testing.T) {
			before := getNode(ctx, t, s, tt.node)
			// Without a fieldManager the API server names the manager after the client's user agent: not ours.
			_, err := a.nodes.CoreV1().Nodes().Patch(ctx, tt.node, tt.patchType, []byte(tt.patch), metav1.PatchOptions{FieldManager: "not-the-installer"})
			assertDenied(t, err, tt.want)
			after := getNode(ctx, t, s, tt.node)
			assertUnchanged(t, before, after)
			attacks.add(fmt.Sprintf("%s (%s on %s)", tt.name, patchName(tt.patchType), tt.node), tt.want, false, err, before.ResourceVersion == after.ResourceVersion)
		})
	}

	t.Run("denied by RBAC: status, delete, create, update", func(t *testing.T) {
		before := getNode(ctx, t, s, "node-a")
		unchanged := func() bool { return getNode(ctx, t, s, "node-a").ResourceVersion == before.ResourceVersion }
		_, err := a.nodes.CoreV1().Nodes().Patch(ctx, "node-a", types.MergePatchType, []byte(`{"status":{"phase":"Terminated"}}`), metav1.PatchOptions{}, "status")
		assertForbidden(t, err, `cannot patch resource "nodes/status"`)
		attacks.add("patch nodes/status of its own node", `cannot patch resource "nodes/status"`, true, err, unchanged())
		err = a.nodes.CoreV1().Nodes().Delete(ctx, "node-a", metav1.DeleteOptions{})
		assertForbidden(t, err, `cannot delete resource "nodes"`)
		attacks.add("delete its own node", `cannot delete resource "nodes"`, true, err, unchanged())
		_, err = a.nodes.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-c"}}, metav1.CreateOptions{})
		assertForbidden(t, err, `cannot create resource "nodes"`)
		attacks.add("create a node", `cannot create resource "nodes"`, true, err, unchanged())
		n := getNode(ctx, t, s, "node-a")
		n.Labels[nodelabel.Key] = nodelabel.Value
		_, err = a.nodes.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		assertForbidden(t, err, `cannot update resource "nodes"`)
		attacks.add("update (PUT) its own node with the label", `cannot update resource "nodes"`, true, err, unchanged())
	})

	t.Run("denied: token not bound to a pod", func(t *testing.T) {
		unbound, err := nodelabel.NewClient(s.TokenConfig(s.RequestToken(ctx, t, "gvisor-installation-pool-a", nil)))
		if err != nil {
			t.Fatal(err)
		}
		before := getNode(ctx, t, s, "node-a")
		err = nodelabel.Set(ctx, unbound, "node-a")
		assertDenied(t, err, denyNoNode)
		attacks.add("the label with a token of the account not bound to a pod (no node name)", denyNoNode, false, err,
			getNode(ctx, t, s, "node-a").ResourceVersion == before.ResourceVersion)
	})

	t.Run("policy holds even if RBAC grants more", func(t *testing.T) {
		// Defence in depth: should someone bind the installers to a broader role, the policy still denies.
		grantMore(ctx, t, s, "gvisor-installation-pool-a")
		var err error
		waitFor(ctx, t, "the broader role to take effect", func() bool {
			err = a.nodes.CoreV1().Nodes().Delete(ctx, "node-a", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
			return err != nil && strings.Contains(err.Error(), nodelabeltest.PolicyName)
		})
		assertDenied(t, err, denyOperation)
		_, err = a.nodes.CoreV1().Nodes().Patch(ctx, "node-a", types.MergePatchType, []byte(`{"status":{"phase":"Terminated"}}`), metav1.PatchOptions{}, "status")
		assertDenied(t, err, denyOperation)
		_, err = a.nodes.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-c"}}, metav1.CreateOptions{})
		assertDenied(t, err, denyOperation)
		n := getNode(ctx, t, s, "node-a")
		n.Labels["example.com/x"] = "y"
		_, err = a.nodes.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		assertDenied(t, err, denyOtherLabel)
		// An update that changes only the readiness label is the same change as Set's patch, and allowed.
		n = getNode(ctx, t, s, "node-a")
		n.Labels[nodelabel.Key] = nodelabel.Value
		if _, err := a.nodes.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{FieldManager: nodelabel.FieldManager}); err != nil {
			t.Errorf("update of only the readiness label: %v", err)
		}
	})

	t.Run("others are not restricted", func(t *testing.T) {
		// The policy matches only the installers: an admin (and kubelet, the machine controller...) label as before.
		_, err := s.Admin.CoreV1().Nodes().Patch(ctx, "node-a", types.MergePatchType, []byte(`{"metadata":{"labels":{"example.com/admin":"yes"}}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// createNode creates node-x of pool-x.
func createNode(ctx context.Context, t *testing.T, s *apiServer, name string) {
	t.Helper()
	s.CreateNode(ctx, t, name, "pool-"+strings.TrimPrefix(name, "node-"))
}

// startInstaller returns the clients the installer in the pool's rendered pod on node has (nodelabeltest.StartInstaller).
func startInstaller(ctx context.Context, t *testing.T, s *apiServer, pool, node string) *installer {
	t.Helper()
	cfg := s.StartInstaller(ctx, t, pool, node)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	label, err := nodelabel.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &installer{pool: pool, node: node, cfg: cfg, nodes: c, label: label}
}

func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// grantMore binds service account kube-system/sa to a role that may do anything with nodes.
func grantMore(ctx context.Context, t *testing.T, s *apiServer, sa string) {
	t.Helper()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "too-broad"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Verbs: []string{"*"}}},
	}
	if _, err := s.Admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "too-broad"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: "kube-system"}},
	}
	if _, err := s.Admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func getNode(ctx context.Context, t *testing.T, s *apiServer, name string) *corev1.Node {
	t.Helper()
	n, err := s.Admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// assertDenied expects a Forbidden error from the readiness gate's admission policy with the given message.
func assertDenied(t *testing.T, err error, want string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+nodelabeltest.PolicyName+"'") || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want a denial by ValidatingAdmissionPolicy %s containing %q", err, nodelabeltest.PolicyName, want)
	}
}

// assertForbidden expects a Forbidden error from RBAC (the request never reaches admission).
func assertForbidden(t *testing.T, err error, want string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want Forbidden containing %q", err, want)
	}
}

func assertUnchanged(t *testing.T, before, after *corev1.Node) {
	t.Helper()
	if before.ResourceVersion != after.ResourceVersion {
		t.Errorf("node %s changed (resourceVersion %s -> %s): labels %v, annotations %v, spec %+v",
			after.Name, before.ResourceVersion, after.ResourceVersion, after.Labels, after.Annotations, after.Spec)
	}
}

// assertOnlyLabelChanged compares everything the installer could touch except the readiness label.
func assertOnlyLabelChanged(t *testing.T, before, after *corev1.Node) {
	t.Helper()
	b, a := before.DeepCopy(), after.DeepCopy()
	for _, n := range []*corev1.Node{b, a} {
		delete(n.Labels, nodelabel.Key)
		n.ResourceVersion, n.ManagedFields = "", nil
	}
	if fmt.Sprint(b.Labels, b.Annotations, b.Spec, b.Finalizers) != fmt.Sprint(a.Labels, a.Annotations, a.Spec, a.Finalizers) {
		t.Errorf("more than the readiness label changed:\nbefore %v %v %+v\nafter  %v %v %+v", b.Labels, b.Annotations, b.Spec, a.Labels, a.Annotations, a.Spec)
	}
}

// replaceManagedFields replaces node's managedFields by entries with a JSON patch (the request an attacker sends).
func replaceManagedFields(ctx context.Context, c kubernetes.Interface, node string, entries []metav1.ManagedFieldsEntry) error {
	patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/metadata/managedFields", "value": entries}})
	if err != nil {
		return err
	}
	_, err = c.CoreV1().Nodes().Patch(ctx, node, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: nodelabel.FieldManager})
	return err
}

// patchName is how the attack table names a patch type.
func patchName(pt types.PatchType) string {
	switch pt {
	case types.JSONPatchType:
		return "JSON patch"
	case types.MergePatchType:
		return "merge patch"
	case types.StrategicMergePatchType:
		return "strategic merge patch"
	case types.ApplyPatchType:
		return "server-side apply"
	}
	return string(pt)
}
