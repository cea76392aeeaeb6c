// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Tests of the gVisor admission's charts (gardener-extension-admission-runtime-gvisor/charts/runtime and
// .../charts/application) with the real helm CLI, like charts_test.go does for the extension chart: lint, values
// documentation, schema rejections, the contract with the binary's flags, certificates, image tags and snapshots.
package charts_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	vpaautoscalingv1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/yaml"

	admissionapp "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	gvisoradmission "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const (
	admissionChart     = "./gardener-extension-admission-runtime-gvisor"
	admissionRuntime   = admissionChart + "/charts/runtime"
	admissionApp       = admissionChart + "/charts/application"
	admissionName      = "gardener-extension-admission-runtime-gvisor"
	admissionValues    = "testdata/admission-values.yaml"
	admissionReleaseNS = "garden" // gardener-operator installs the runtime chart into garden
)

// admissionObjects are one rendering of an admission chart, each object decoded strictly.
type admissionObjects struct {
	deployments []appsv1.Deployment
	services    []corev1.Service
	accounts    []corev1.ServiceAccount
	secrets     []corev1.Secret
	pdbs        []policyv1.PodDisruptionBudget
	vpas        []vpaautoscalingv1.VerticalPodAutoscaler
	vwcs        []admissionregistrationv1.ValidatingWebhookConfiguration
}

func templateAdmission(t *testing.T, chart string, args ...string) string {
	t.Helper()
	out, stderr, err := helm(t, append([]string{"template", "gvisor-admission", chart, "--namespace", admissionReleaseNS}, args...)...)
	if err != nil {
		t.Fatalf("helm template %s %v: %v\n%s", chart, args, err, stderr)
	}
	return out
}

func decodeAdmission(t *testing.T, manifests string) admissionObjects {
	t.Helper()
	var r admissionObjects
	decodeDocuments(t, manifests, "an admission chart", func(gvk string) any {
		switch gvk {
		case "apps/v1/Deployment":
			return appendNew(&r.deployments)
		case "v1/Service":
			return appendNew(&r.services)
		case "v1/ServiceAccount":
			return appendNew(&r.accounts)
		case "v1/Secret":
			return appendNew(&r.secrets)
		case "policy/v1/PodDisruptionBudget":
			return appendNew(&r.pdbs)
		case "autoscaling.k8s.io/v1/VerticalPodAutoscaler":
			return appendNew(&r.vpas)
		case "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration":
			return appendNew(&r.vwcs)
		}
		return nil
	})
	return r
}

// TestAdmissionLintStrict lints both admission charts.
func TestAdmissionLintStrict(t *testing.T) {
	for _, chart := range []string{admissionRuntime, admissionApp} {
		t.Run(chart, func(t *testing.T) {
			if out, stderr, err := helm(t, "lint", "--strict", chart, "-f", admissionValues); err != nil {
				t.Fatalf("helm lint --strict %s: %v\n%s%s", chart, err, out, stderr)
			}
		})
	}
}

// TestAdmissionREADMEValuesTables keeps each chart's README values table and values.yaml in sync, and every value
// documented beside its default.
func TestAdmissionREADMEValuesTables(t *testing.T) {
	for _, chart := range []string{admissionRuntime, admissionApp} {
		t.Run(chart, func(t *testing.T) {
			values := documentedValues(t, chart+"/values.yaml")
			readme, err := os.ReadFile(chart + "/README.md")
			if err != nil {
				t.Fatal(err)
			}
			var table []string
			for _, m := range readmeRow.FindAllStringSubmatch(string(readme), -1) {
				table = append(table, m[1])
			}
			if diff := cmp.Diff(values, sortedCopy(table)); diff != "" {
				t.Errorf("README.md values table and values.yaml disagree (-values.yaml +README.md):\n%s", diff)
			}
		})
	}
}

// TestAdmissionSharedSchema: gardener-operator passes the same values to both charts, so both use one schema and
// each accepts the other's values.
func TestAdmissionSharedSchema(t *testing.T) {
	// Both charts' values.schema.json are copies of the umbrella chart's (TestSchemaCopiesAreCurrent).
	both := writeFile(t, "both.yaml", "replicaCount: 3\nwebhook:\n  timeoutSeconds: 5\nruntimeNamespace: garden\nlogLevel: debug\n")
	templateAdmission(t, admissionRuntime, "-f", admissionValues, "-f", both)
	templateAdmission(t, admissionApp, "-f", admissionValues, "-f", both)
}

// TestAdmissionRuntimeContract: the Deployment's args parse with the binary's own flag set and point at the
// mounted certificate; probes, ports, security, PDB, VPA and the Service match.
func TestAdmissionRuntimeContract(t *testing.T) {
	r := decodeAdmission(t, templateAdmission(t, admissionRuntime, "-f", admissionValues))
	if len(r.deployments) != 1 || len(r.deployments[0].Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one Deployment with one container, got %d", len(r.deployments))
	}
	d := r.deployments[0]
	c := d.Spec.Template.Spec.Containers[0]

	o, fs := admissionapp.NewFlagSet()
	if err := fs.Parse(c.Args); err != nil {
		t.Fatalf("the binary refuses the chart's args %v: %v", c.Args, err)
	}
	if diff := cmp.Diff([]string{"/" + admissionName}, c.Command); diff != "" {
		t.Errorf("command (-want +got):\n%s", diff)
	}
	var certMount string
	for _, m := range c.VolumeMounts {
		if m.Name == "tls" && m.ReadOnly {
			certMount = m.MountPath
		}
	}
	if certMount == "" || o.CertDir != certMount {
		t.Errorf("--tls-cert-dir %q is not the read-only tls mount %q", o.CertDir, certMount)
	}
	if len(r.secrets) != 1 || d.Spec.Template.Spec.Volumes[0].Secret == nil || d.Spec.Template.Spec.Volumes[0].Secret.SecretName != r.secrets[0].Name {
		t.Errorf("the tls volume must mount the chart's Secret %v", r.secrets)
	}
	for _, key := range []string{o.CertName, o.KeyName} {
		if _, ok := r.secrets[0].Data[key]; !ok {
			t.Errorf("the Secret lacks %s, which the binary reads", key)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["https"] != int32(o.Port) || o.HealthBindAddress != ":"+itoa(ports["health"]) || o.MetricsBindAddress != ":"+itoa(ports["metrics"]) {
		t.Errorf("container ports %v disagree with the args %v", ports, c.Args)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.HTTPGet.Port.String() != "health" {
		t.Errorf("readiness probe %+v", p)
	}
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "health" {
		t.Errorf("liveness probe %+v", p)
	}
	if len(r.services) != 1 || r.services[0].Spec.Ports[0].TargetPort.String() != "https" || r.services[0].Spec.Ports[0].Port != 443 || r.services[0].Name != admissionName {
		t.Errorf("want Service %s port 443 -> https, got %+v", admissionName, r.services)
	}
	psc, sc := d.Spec.Template.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !cmp.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("security contexts %+v %+v", psc, sc)
	}
	if am := d.Spec.Template.Spec.AutomountServiceAccountToken; am == nil || *am {
		t.Error("the webhook calls no API server: its pods must not mount a ServiceAccount token")
	}
	if d.Spec.Template.Spec.PriorityClassName != "gardener-garden-system-400" {
		t.Errorf("priorityClassName %q: want gardener.runtimeCluster.priorityClassName", d.Spec.Template.Spec.PriorityClassName)
	}
	if *d.Spec.Replicas < 2 || len(r.pdbs) != 1 || len(r.vpas) != 1 {
		t.Errorf("want at least 2 replicas, a PDB and a VPA by default (failurePolicy Fail), got %d, %d, %d", *d.Spec.Replicas, len(r.pdbs), len(r.vpas))
	}
}

// TestAdmissionGeneratedCertificate: without tls values the runtime chart generates a CA and a certificate for the
// Service's DNS names, and the Secret carries the CA for the application chart.
func TestAdmissionGeneratedCertificate(t *testing.T) {
	r := decodeAdmission(t, templateAdmission(t, admissionRuntime))
	if len(r.secrets) != 1 {
		t.Fatalf("want one Secret, got %d", len(r.secrets))
	}
	s := r.secrets[0]
	leaf, ca := parseCert(t, s.Data["tls.crt"]), parseCert(t, s.Data["ca.crt"])
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, host := range []string{admissionName + "." + admissionReleaseNS + ".svc", admissionName + "." + admissionReleaseNS} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("generated certificate not valid for %s: %v", host, err)
		}
	}
	if len(s.Data["tls.key"]) == 0 || s.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %s without key: %v", s.Type, len(s.Data["tls.key"]))
	}
}

// TestAdmissionWebhookConfiguration: the ValidatingWebhookConfiguration Gardener's convention asks for.
func TestAdmissionWebhookConfiguration(t *testing.T) {
	r := decodeAdmission(t, templateAdmission(t, admissionApp, "-f", admissionValues))
	if len(r.vwcs) != 1 || len(r.vwcs[0].Webhooks) != 1 || len(r.deployments)+len(r.secrets)+len(r.services) != 0 {
		t.Fatalf("want exactly one ValidatingWebhookConfiguration with one webhook, got %+v", r)
	}
	w := r.vwcs[0].Webhooks[0]
	if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy %v, want Fail", w.FailurePolicy)
	}
	if w.SideEffects == nil || *w.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("sideEffects %v", w.SideEffects)
	}
	if diff := cmp.Diff(map[string]string{"containerruntime.extensions.gardener.cloud/gvisor": "true"}, w.ObjectSelector.MatchLabels); diff != "" {
		t.Errorf("objectSelector (-want +got):\n%s", diff)
	}
	wantRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"core.gardener.cloud"}, APIVersions: []string{"v1beta1"},
			Resources: []string{"shoots"}, Scope: ptrTo(admissionregistrationv1.NamespacedScope)},
	}}
	if diff := cmp.Diff(wantRules, w.Rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	wantURL := "https://" + admissionName + ".garden.svc:443" + gvisoradmission.WebhookPath
	if w.ClientConfig.URL == nil || *w.ClientConfig.URL != wantURL {
		t.Errorf("url %v, want %s", w.ClientConfig.URL, wantURL)
	}
	caFile, err := os.ReadFile(admissionValues)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		TLS struct {
			CABundle string `json:"caBundle"`
		} `json:"tls"`
	}
	if err := yaml.Unmarshal(caFile, &v); err != nil {
		t.Fatal(err)
	}
	if string(w.ClientConfig.CABundle) != v.TLS.CABundle {
		t.Error("caBundle is not tls.caBundle")
	}
}

// TestAdmissionSchemaRejects: bad values fail helm with a message naming the field.
func TestAdmissionSchemaRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chart string
		args  []string
		want  []string
	}{
		{"unknown key", admissionRuntime, []string{"--set", "replicas=2"}, []string{"additional properties 'replicas' not allowed"}},
		{"unknown nested key", admissionApp, []string{"--set", "webhook.failurePolicy=Ignore"}, []string{"/webhook", "'failurePolicy' not allowed"}},
		{"development tag", admissionRuntime, []string{"--set", "image.tag=v0.1.0-dev"}, []string{"/image/tag", "must be a released tag"}},
		{"string for an integer", admissionRuntime, []string{"--set-string", "replicaCount=two"}, []string{"/replicaCount", "want integer"}},
		{"plain HTTP webhook URL", admissionApp, []string{"--set", "webhook.url=http://example.com/x", "--set", "tls.caBundle=-----BEGIN CERTIFICATE-----x-----END CERTIFICATE-----"}, []string{"/webhook/url"}},
		{"not a PEM", admissionRuntime, []string{"--set", "tls.crt=abc", "--set", "tls.key=def"}, []string{"/tls/crt", "/tls/key"}},
		{"certificate without key", admissionRuntime, []string{"--set", "tls.crt=-----BEGIN CERTIFICATE-----x-----END CERTIFICATE-----"}, []string{"tls.crt and tls.key must be set together"}},
		{"no CA for the webhook", admissionApp, nil, []string{"tls.caBundle is required"}},
		{"bad log level", admissionRuntime, []string{"--set", "logLevel=verbose"}, []string{"/logLevel"}},
		{"timeout above the API server's limit", admissionApp, []string{"--set", "webhook.timeoutSeconds=31"}, []string{"/webhook/timeoutSeconds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			templateRefused(t, []string{"template", "gvisor-admission", tc.chart, "--namespace", admissionReleaseNS}, tc.args, tc.want)
		})
	}
}

// TestAdmissionImage: the default image is a released tag, the one imagevector/images.yaml pins for the
// admission, and the chart's appVersion.
func TestAdmissionImage(t *testing.T) {
	_, c := func() (appsv1.Deployment, corev1.Container) {
		r := decodeAdmission(t, templateAdmission(t, admissionRuntime, "-f", admissionValues))
		return r.deployments[0], r.deployments[0].Spec.Template.Spec.Containers[0]
	}()
	if err := imagevector.CheckReference(c.Image); err != nil {
		t.Error(err)
	}
	vector, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	img, err := vector.FindImage(imagevector.ImageNameAdmission)
	if err != nil {
		t.Fatalf("imagevector/images.yaml has no %s: %v", admissionName, err)
	}
	if c.Image != img.String() {
		t.Errorf("chart default image %s != imagevector/images.yaml %s: bump Chart.yaml appVersion and images.yaml together", c.Image, img.String())
	}
}

// TestAdmissionSnapshot compares both charts' renderings with the golden files (UPDATE_SNAPSHOTS=1 rewrites them).
// The runtime chart is rendered with the fixed certificate of testdata/admission-values.yaml: a generated one
// differs on every run.
func TestAdmissionSnapshot(t *testing.T) {
	requireHelmToUpdate(t)
	for _, tc := range []struct {
		golden, chart string
	}{
		{"testdata/gardener-extension-admission-runtime-gvisor.runtime.yaml", admissionRuntime},
		{"testdata/gardener-extension-admission-runtime-gvisor.application.yaml", admissionApp},
	} {
		t.Run(filepath.Base(tc.golden), func(t *testing.T) {
			testutil.Golden(t, tc.golden, templateAdmission(t, tc.chart, "-f", admissionValues))
		})
	}
}

func parseCert(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(data)
	if b == nil {
		t.Fatalf("not PEM: %q", data)
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func ptrTo[T any](v T) *T { return &v }

// TestAdmissionPackage: `helm package` (what gets pushed for gardener-operator's ociRepository) stores the shared
// schema's content in each chart, the umbrella's copy, and the packaged chart enforces it.
func TestAdmissionPackage(t *testing.T) {
	schema, err := os.ReadFile(admissionChart + "/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, chart := range []string{admissionRuntime, admissionApp} {
		t.Run(chart, func(t *testing.T) {
			dir := t.TempDir()
			if _, stderr, err := helm(t, "package", chart, "--destination", dir); err != nil {
				t.Fatalf("helm package: %v\n%s", err, stderr)
			}
			archives, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
			if len(archives) != 1 {
				t.Fatalf("want one archive, got %v", archives)
			}
			name := admissionName + "-" + filepath.Base(chart)
			if got := readTarEntry(t, archives[0], name+"/values.schema.json"); string(got) != string(schema) {
				t.Error("packaged values.schema.json differs from the shared schema")
			}
			_, stderr, err := helm(t, "template", "x", archives[0], "-f", admissionValues, "--set", "replicas=3")
			if err == nil || !strings.Contains(stderr, "'replicas' not allowed") {
				t.Errorf("packaged chart does not enforce the schema: %v\n%s", err, stderr)
			}
		})
	}
}
