// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
)

// TestRBAC compares the complete rendered permissions, so widening them is always a deliberate change
// to this expectation (the templates say why each rule exists).
func TestRBAC(t *testing.T) {
	r := decode(t, template(t))
	if len(r.clusterRoles) != 1 || len(r.roles) != 1 || len(r.clusterRBs) != 1 || len(r.roleBindings) != 1 {
		t.Fatalf("want one ClusterRole, Role and binding each, got %d %d %d %d",
			len(r.clusterRoles), len(r.roles), len(r.clusterRBs), len(r.roleBindings))
	}
	rw := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	wantCluster := []rbacv1.PolicyRule{
		{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"containerruntimes"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"containerruntimes/status"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"clusters"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"extensions.gardener.cloud"}, Resources: []string{"operatingsystemconfigs"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"resources.gardener.cloud"}, Resources: []string{"managedresources"}, Verbs: rw},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create", "update", "patch", "delete"}},
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"scrapeconfigs", "prometheusrules"}, Verbs: []string{"create"}},
		// The names pkg/monitoring builds (both delivery modes' ScrapeConfigs: a switch back deletes the nodes' one).
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"scrapeconfigs"},
			ResourceNames: []string{monitoring.ObjectName, monitoring.NodeScrapeConfigName}, Verbs: []string{"get", "update", "delete"}},
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"prometheusrules"},
			ResourceNames: []string{monitoring.ObjectName}, Verbs: []string{"get", "update", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"},
			ResourceNames: []string{"extension-runtime-gvisor-dashboards"}, Verbs: []string{"get", "update", "delete"}},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, Verbs: []string{"get", "list", "watch", "create"}},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"},
			ResourceNames: []string{"gardener-extension-runtime-gvisor"}, Verbs: []string{"update", "patch"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
	if diff := cmp.Diff(wantCluster, r.clusterRoles[0].Rules); diff != "" {
		t.Errorf("ClusterRole rules (-want +got):\n%s", diff)
	}
	wantNamespaced := []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "get", "list", "watch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
			ResourceNames: []string{"gardener-extension-runtime-gvisor-leader-election", "gardener-extension-heartbeat"}, Verbs: []string{"update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "create", "update", "patch", "delete"}},
	}
	if diff := cmp.Diff(wantNamespaced, r.roles[0].Rules); diff != "" {
		t.Errorf("Role rules (-want +got):\n%s", diff)
	}
	if r.roles[0].Namespace != releaseNS {
		t.Errorf("Role in namespace %q, want the release namespace", r.roles[0].Namespace)
	}

	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "gardener-extension-runtime-gvisor", Namespace: releaseNS}}
	if diff := cmp.Diff(subject, r.clusterRBs[0].Subjects); diff != "" {
		t.Errorf("ClusterRoleBinding subjects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(subject, r.roleBindings[0].Subjects); diff != "" {
		t.Errorf("RoleBinding subjects (-want +got):\n%s", diff)
	}
	if r.clusterRBs[0].RoleRef.Name != r.clusterRoles[0].Name || r.roleBindings[0].RoleRef.Name != r.roles[0].Name {
		t.Error("bindings do not reference the rendered roles")
	}
	// Cluster-scoped names carry the namespace: two releases must not share (and fight over) one ClusterRole.
	if want := "gardener-extension-runtime-gvisor:" + releaseNS; r.clusterRoles[0].Name != want {
		t.Errorf("ClusterRole name %q, want %q", r.clusterRoles[0].Name, want)
	}
}
