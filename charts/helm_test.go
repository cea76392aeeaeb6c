// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	vpaautoscalingv1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/yaml"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// Helpers shared by the helm CLI tests in charts_test.go.

const (
	extensionChart = "./gardener-extension-runtime-gvisor"
	// Release name and namespace as gardenlet uses them: the release is named after the
	// ControllerRegistration and installed into extension-<name>.
	releaseName = "runtime-gvisor"
	releaseNS   = "extension-runtime-gvisor"
)

// helm runs the real helm CLI and returns stdout, stderr and the error (nil for exit code 0).
func helm(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(realcomponents.Helm(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Keep helm away from the developer's repositories, plugins and registry logins.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// requireHelmToUpdate fails a golden test that `make snapshots` (testutil.Updating) runs without the helm CLI:
// realcomponents.Helm would skip it, leaving stale golden files behind a green run.
func requireHelmToUpdate(t *testing.T) {
	t.Helper()
	if testutil.Updating() && os.Getenv("HELM_BIN") == "" {
		t.Fatal(testutil.UpdateEnv + "=1 needs the helm CLI: run with HELM_BIN=$(hack/tools/helm.sh)")
	}
}

// template renders the extension chart with extra helm arguments and fails the test on any error and on any
// warning helm prints (a symbolic link in the chart, a map given for a string default, ...): an operator must be
// able to render the chart from a checkout without noise.
func template(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := helm(t, append([]string{"template", releaseName, extensionChart, "--namespace", releaseNS}, args...)...)
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, stderr)
	}
	if stderr != "" {
		t.Fatalf("helm template %v printed warnings:\n%s", args, stderr)
	}
	return out
}

// templateRefused runs helm with command (a `helm template` of one chart) and args and expects helm to refuse
// them with an error that contains every string of want.
func templateRefused(t *testing.T, command, args, want []string) {
	t.Helper()
	out, stderr, err := helm(t, append(command, args...)...)
	if err == nil {
		t.Fatalf("helm accepted %v:\n%s", args, out)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("helm error lacks %q:\n%s", w, stderr)
		}
	}
}

// rendered holds the objects of one `helm template` output, each decoded STRICTLY into its API type, so a
// misspelled field in a template fails here rather than being dropped by the API server.
type rendered struct {
	deployments   []appsv1.Deployment
	configMaps    []corev1.ConfigMap
	services      []corev1.Service
	accounts      []corev1.ServiceAccount
	clusterRoles  []rbacv1.ClusterRole
	clusterRBs    []rbacv1.ClusterRoleBinding
	roles         []rbacv1.Role
	roleBindings  []rbacv1.RoleBinding
	pdbs          []policyv1.PodDisruptionBudget
	vpas          []vpaautoscalingv1.VerticalPodAutoscaler
	promRules     []monitoringv1.PrometheusRule
	imageRefs     []string
	documentCount int
}

func decode(t *testing.T, manifests string) rendered {
	t.Helper()
	var r rendered
	r.documentCount = decodeDocuments(t, manifests, "the extension chart", func(gvk string) any {
		switch gvk {
		case "apps/v1/Deployment":
			return appendNew(&r.deployments)
		case "v1/ConfigMap":
			return appendNew(&r.configMaps)
		case "v1/Service":
			return appendNew(&r.services)
		case "v1/ServiceAccount":
			return appendNew(&r.accounts)
		case "rbac.authorization.k8s.io/v1/ClusterRole":
			return appendNew(&r.clusterRoles)
		case "rbac.authorization.k8s.io/v1/ClusterRoleBinding":
			return appendNew(&r.clusterRBs)
		case "rbac.authorization.k8s.io/v1/Role":
			return appendNew(&r.roles)
		case "rbac.authorization.k8s.io/v1/RoleBinding":
			return appendNew(&r.roleBindings)
		case "policy/v1/PodDisruptionBudget":
			return appendNew(&r.pdbs)
		case "autoscaling.k8s.io/v1/VerticalPodAutoscaler":
			return appendNew(&r.vpas)
		case "monitoring.coreos.com/v1/PrometheusRule":
			return appendNew(&r.promRules)
		}
		return nil
	})
	for _, d := range r.deployments {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			r.imageRefs = append(r.imageRefs, c.Image)
		}
	}
	return r
}

// decodeDocuments splits a `helm template` output of chart into its documents and decodes each STRICTLY into
// the object target returns for its apiVersion/kind; nil (an object the test does not know) fails the test. It
// returns the number of objects (documents with only comments do not count).
func decodeDocuments(t *testing.T, manifests, chart string, target func(gvk string) any) int {
	t.Helper()
	objects := 0
	for _, doc := range strings.Split(manifests, "\n---\n") {
		doc = strings.TrimPrefix(strings.TrimSpace(doc), "---")
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("document is not YAML: %v\n%s", err, doc)
		}
		if head.APIVersion == "" && head.Kind == "" {
			continue // only comments
		}
		gvk := head.APIVersion + "/" + head.Kind
		obj := target(gvk)
		if obj == nil {
			t.Fatalf("unexpected object %s in %s: add it to the test deliberately", gvk, chart)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s does not decode strictly: %v\n%s", gvk, err, doc)
		}
		objects++
	}
	return objects
}

// appendNew appends a zero T to s and returns a pointer to it, to decode into.
func appendNew[T any](s *[]T) *T {
	*s = append(*s, *new(T))
	return &(*s)[len(*s)-1]
}

// deployment returns the only Deployment and its only container.
func (r rendered) deployment(t *testing.T) (appsv1.Deployment, corev1.Container) {
	t.Helper()
	if len(r.deployments) != 1 || len(r.deployments[0].Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want exactly one Deployment with one container, got %d Deployments", len(r.deployments))
	}
	return r.deployments[0], r.deployments[0].Spec.Template.Spec.Containers[0]
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
