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

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
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
	imageRefs     []string
	documentCount int
}

func decode(t *testing.T, manifests string) rendered {
	t.Helper()
	var r rendered
	for _, doc := range strings.Split(manifests, "\n---\n") {
		doc = strings.TrimPrefix(strings.TrimSpace(doc), "---")
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("document is not YAML: %v\n%s", err, doc)
		}
		if head.Kind == "" {
			continue // only comments
		}
		r.documentCount++
		gvk := head.APIVersion + "/" + head.Kind
		var target any
		switch gvk {
		case "apps/v1/Deployment":
			r.deployments = append(r.deployments, appsv1.Deployment{})
			target = &r.deployments[len(r.deployments)-1]
		case "v1/ConfigMap":
			r.configMaps = append(r.configMaps, corev1.ConfigMap{})
			target = &r.configMaps[len(r.configMaps)-1]
		case "v1/Service":
			r.services = append(r.services, corev1.Service{})
			target = &r.services[len(r.services)-1]
		case "v1/ServiceAccount":
			r.accounts = append(r.accounts, corev1.ServiceAccount{})
			target = &r.accounts[len(r.accounts)-1]
		case "rbac.authorization.k8s.io/v1/ClusterRole":
			r.clusterRoles = append(r.clusterRoles, rbacv1.ClusterRole{})
			target = &r.clusterRoles[len(r.clusterRoles)-1]
		case "rbac.authorization.k8s.io/v1/ClusterRoleBinding":
			r.clusterRBs = append(r.clusterRBs, rbacv1.ClusterRoleBinding{})
			target = &r.clusterRBs[len(r.clusterRBs)-1]
		case "rbac.authorization.k8s.io/v1/Role":
			r.roles = append(r.roles, rbacv1.Role{})
			target = &r.roles[len(r.roles)-1]
		case "rbac.authorization.k8s.io/v1/RoleBinding":
			r.roleBindings = append(r.roleBindings, rbacv1.RoleBinding{})
			target = &r.roleBindings[len(r.roleBindings)-1]
		case "policy/v1/PodDisruptionBudget":
			r.pdbs = append(r.pdbs, policyv1.PodDisruptionBudget{})
			target = &r.pdbs[len(r.pdbs)-1]
		case "autoscaling.k8s.io/v1/VerticalPodAutoscaler":
			r.vpas = append(r.vpas, vpaautoscalingv1.VerticalPodAutoscaler{})
			target = &r.vpas[len(r.vpas)-1]
		default:
			t.Fatalf("unexpected object %s in the extension chart: add it to the test deliberately", gvk)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), target); err != nil {
			t.Fatalf("%s does not decode strictly: %v\n%s", gvk, err, doc)
		}
	}
	for _, d := range r.deployments {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			r.imageRefs = append(r.imageRefs, c.Image)
		}
	}
	return r
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
