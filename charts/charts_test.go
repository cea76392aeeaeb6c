// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Tests of the three charts with the real helm CLI (realcomponents.Helm: skipped without HELM_BIN, failed
// under `make test`): lint, template, schema rejections, snapshot, image tags and packaging.
package charts_test

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestLintStrict lints every chart we ship; --strict turns lint warnings into failures.
func TestLintStrict(t *testing.T) {
	for _, chart := range []string{extensionChart, "./internal/gvisor", "./internal/gvisor-installation"} {
		t.Run(chart, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(chart, "Chart.yaml")); err != nil {
				t.Fatalf("chart missing: %v", err)
			}
			out, stderr, err := helm(t, "lint", "--strict", chart)
			if err != nil {
				t.Fatalf("helm lint --strict %s: %v\n%s%s", chart, err, out, stderr)
			}
		})
	}
}

// TestTemplateDefaults checks the Deployment against the contract with the controller and the security
// requirements, with the default values (no imageVectorOverwrite).
func TestTemplateDefaults(t *testing.T) {
	r := decode(t, template(t))
	d, c := r.deployment(t)

	wantArgs := []string{
		"--leader-election=true",
		"--leader-election-id=gardener-extension-runtime-gvisor-leader-election",
		"--leader-election-namespace=" + releaseNS,
		"--max-concurrent-reconciles=5",
		"--ignore-operation-annotation=false",
		"--delete-wait-timeout=2m",
		"--uninstall-timeout=5m",
		"--readiness-gate=false",
		"--prove-sandbox=true",
		"--reprove-interval=5m",
		"--sandbox-metrics=false",
		"--healthcheck-sync-period=30s",
		"--delivery-mode=daemonset",
		"--shoot-monitoring=true",
		"--webhook-config-mode=service",
		"--webhook-config-namespace=" + releaseNS,
		"--webhook-config-service-port=443",
		"--webhook-config-server-port=10250",
		"--heartbeat-namespace=" + releaseNS,
		"--heartbeat-renew-interval-seconds=30",
		"--metrics-bind-address=:8080",
		"--health-bind-address=:8081",
		"--log-level=info",
		"--log-format=json",
	}
	if diff := cmp.Diff([]string{"/gardener-extension-runtime-gvisor"}, c.Command); diff != "" {
		t.Errorf("command (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	// The default tag is the chart's appVersion, which names the last release as images.yaml pins it.
	var meta struct {
		AppVersion  string            `json:"appVersion"`
		Annotations map[string]string `json:"annotations"`
	}
	chartYAML, err := os.ReadFile(filepath.Join(extensionChart, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
		t.Fatalf("%s/Chart.yaml: %v", extensionChart, err)
	}
	pinned, err := imagevector.PinnedTag(imagevector.ImageNameExtension)
	if err != nil {
		t.Fatal(err)
	}
	if meta.AppVersion != pinned {
		t.Errorf("%s/Chart.yaml appVersion %q != imagevector/images.yaml tag %q: bump them together", extensionChart, meta.AppVersion, pinned)
	}
	wantImage := "ghcr.io/runtime-gvisor/gardener-extension-runtime-gvisor:" + meta.AppVersion
	if digest := meta.Annotations[imagevector.ImageDigestAnnotation]; digest != "" {
		wantImage += "@" + digest // a release's chart: its image by the digest it pinned
	}
	if c.Image != wantImage {
		t.Errorf("image %q: want %s (the chart's appVersion as tag, and the release's digest if pinned)", c.Image, wantImage)
	}
	wantEnv := []corev1.EnvVar{{Name: "LEADER_ELECTION_NAMESPACE", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
	if diff := cmp.Diff(wantEnv, c.Env); diff != "" {
		t.Errorf("env without imageVectorOverwrite (-want +got):\n%s", diff)
	}
	if len(r.configMaps) != 0 {
		t.Errorf("imagevector ConfigMap rendered without imageVectorOverwrite")
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/imagevector" {
			t.Errorf("/imagevector mounted without imageVectorOverwrite")
		}
	}
	if _, ok := d.Spec.Template.Annotations["checksum/configmap-imagevector-overwrite"]; ok {
		t.Error("checksum annotation without imageVectorOverwrite")
	}

	// Probes and ports: /healthz and /readyz on the health port, /metrics port exposed by the Service.
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "health" {
		t.Errorf("liveness probe %+v", p)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.HTTPGet.Port.String() != "health" {
		t.Errorf("readiness probe %+v", p)
	}
	wantPorts := []corev1.ContainerPort{
		{Name: "webhook", ContainerPort: 10250, Protocol: corev1.ProtocolTCP},
		{Name: "metrics", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
		{Name: "health", ContainerPort: 8081, Protocol: corev1.ProtocolTCP},
	}
	if diff := cmp.Diff(wantPorts, c.Ports); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	// The metrics Service and the OperatingSystemConfig webhook's, which Gardener's webhook library names like the
	// Deployment (service mode) and the seed's kube-apiserver calls on 443.
	if len(r.services) != 2 {
		t.Fatalf("want the metrics and the webhook Service, got %+v", r.services)
	}
	for _, svc := range r.services {
		want := map[string]string{"gardener-extension-runtime-gvisor-metrics": "metrics", "gardener-extension-runtime-gvisor": "webhook"}[svc.Name]
		if want == "" || svc.Spec.Ports[0].TargetPort.String() != want || (want == "webhook" && svc.Spec.Ports[0].Port != 443) {
			t.Errorf("Service %s: ports %+v", svc.Name, svc.Spec.Ports)
		}
	}

	// Pod security: non-root, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp.
	psc, sc := d.Spec.Template.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil ||
		psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !cmp.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("container securityContext %+v", sc)
	}
	if d.Spec.Template.Spec.PriorityClassName != "gardener-system-900" {
		t.Errorf("priorityClassName %q", d.Spec.Template.Spec.PriorityClassName)
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want memory requests and limits", c.Resources)
	}
	if d.Spec.Template.Spec.ServiceAccountName != "gardener-extension-runtime-gvisor" || len(r.accounts) != 1 {
		t.Errorf("ServiceAccount: %q, %d rendered", d.Spec.Template.Spec.ServiceAccountName, len(r.accounts))
	}
	if len(r.pdbs) != 1 || len(r.vpas) != 0 {
		t.Errorf("want a PodDisruptionBudget and no VPA by default, got %d and %d", len(r.pdbs), len(r.vpas))
	}
}

// TestTemplateImageVectorOverwrite: the top-level value becomes a ConfigMap, a read-only mount at
// /imagevector, IMAGEVECTOR_OVERWRITE, and a checksum that changes with the content.
func TestTemplateImageVectorOverwrite(t *testing.T) {
	overwrite := "images:\n- name: runtime-gvisor-installation\n  ref: registry.example.com/gvisor/installation:v0.1.0\n"
	values := writeFile(t, "values.yaml", "imageVectorOverwrite: |\n  "+strings.ReplaceAll(strings.TrimSpace(overwrite), "\n", "\n  ")+"\n")
	r := decode(t, template(t, "-f", values))
	d, c := r.deployment(t)

	if len(r.configMaps) != 1 {
		t.Fatalf("want one ConfigMap, got %d", len(r.configMaps))
	}
	cm := r.configMaps[0]
	if diff := cmp.Diff(map[string]string{"images_overwrite.yaml": overwrite}, cm.Data); diff != "" {
		t.Errorf("ConfigMap data (-want +got):\n%s", diff)
	}
	wantEnv := corev1.EnvVar{Name: "IMAGEVECTOR_OVERWRITE", Value: "/imagevector/images_overwrite.yaml"}
	if !containsEnv(c.Env, wantEnv) {
		t.Errorf("env %+v lacks %+v", c.Env, wantEnv)
	}
	var mounted bool
	for _, m := range c.VolumeMounts {
		mounted = mounted || (m.MountPath == "/imagevector" && m.ReadOnly && volumeFromConfigMap(d.Spec.Template.Spec.Volumes, m.Name, cm.Name))
	}
	if !mounted {
		t.Errorf("ConfigMap %s not mounted read-only at /imagevector: %+v", cm.Name, c.VolumeMounts)
	}
	sum := d.Spec.Template.Annotations["checksum/configmap-imagevector-overwrite"]
	if sum == "" {
		t.Fatal("no checksum annotation")
	}
	d2, _ := decode(t, template(t, "--set", "imageVectorOverwrite=images: []")).deployment(t)
	if d2.Spec.Template.Annotations["checksum/configmap-imagevector-overwrite"] == sum {
		t.Error("checksum did not change with the overwrite content")
	}
}

// TestTemplateImageVectorOverwriteMap: the overwrite given as a map (a values file, --set-json) renders the same
// ConfigMap as the same content given as Gardener's YAML string, with no helm warning (template fails on any).
func TestTemplateImageVectorOverwriteMap(t *testing.T) {
	const text = "images:\n- name: runtime-gvisor-installation\n  ref: registry.example.com/gvisor/installation:v0.1.0\n"
	asString := decode(t, template(t, "--set-string", "imageVectorOverwrite="+text))
	asMap := decode(t, template(t, "--set-json",
		`imageVectorOverwrite={"images":[{"name":"runtime-gvisor-installation","ref":"registry.example.com/gvisor/installation:v0.1.0"}]}`))
	valuesFile := writeFile(t, "values.yaml", "imageVectorOverwrite:\n  images:\n  - name: runtime-gvisor-installation\n"+
		"    ref: registry.example.com/gvisor/installation:v0.1.0\n")
	asMapFile := decode(t, template(t, "-f", valuesFile))
	for name, r := range map[string]rendered{"--set-json": asMap, "values file": asMapFile} {
		if len(r.configMaps) != 1 || len(asString.configMaps) != 1 {
			t.Fatalf("%s: want one ConfigMap each, got %d and %d", name, len(r.configMaps), len(asString.configMaps))
		}
		if diff := cmp.Diff(asString.configMaps[0].Data, r.configMaps[0].Data); diff != "" {
			t.Errorf("%s: ConfigMap data differs from the string form (-string +map):\n%s", name, diff)
		}
	}
	_, stderr, err := helm(t, "template", releaseName, extensionChart, "--set-json", `imageVectorOverwrite={"image":[]}`)
	if err == nil || !strings.Contains(stderr, "imageVectorOverwrite") {
		t.Errorf("a map without images must be refused naming imageVectorOverwrite, got err %v:\n%s", err, stderr)
	}
}

// TestTemplateOptionalArgsAndObjects covers the values that add args and objects.
func TestTemplateOptionalArgsAndObjects(t *testing.T) {
	r := decode(t, template(t, "--set", "gardener.version=v1.149.3", "--set", "controller.disableControllers={heartbeat}",
		"--set", "leaderElection.enabled=false", "--set", "vpa.enabled=true", "--set", "podDisruptionBudget.enabled=false",
		"--set", "priorityClassName=", "--set", "image.tag=v0.2.0"))
	d, c := r.deployment(t)
	for _, want := range []string{"--gardener-version=v1.149.3", "--disable-controllers=heartbeat", "--leader-election=false"} {
		if !contains(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	if len(r.vpas) != 1 || r.vpas[0].Spec.TargetRef.Name != d.Name {
		t.Errorf("want a VPA targeting %s, got %+v", d.Name, r.vpas)
	}
	if len(r.pdbs) != 0 || d.Spec.Template.Spec.PriorityClassName != "" {
		t.Error("podDisruptionBudget.enabled=false / empty priorityClassName not honoured")
	}
	if c.Image != "ghcr.io/runtime-gvisor/gardener-extension-runtime-gvisor:v0.2.0" {
		t.Errorf("image %q", c.Image)
	}
}

// TestGardenerInjectedValues renders with the values from the generated ControllerDeployment plus the
// gardener block gardenlet injects: a strict schema must not reject what Gardener adds.
func TestGardenerInjectedValues(t *testing.T) {
	r := decode(t, template(t, "-f", "testdata/gardener-injected-values.yaml"))
	_, c := r.deployment(t)
	if !contains(c.Args, "--gardener-version=v1.149.3") {
		t.Errorf("args %v lack --gardener-version from the injected gardener.version", c.Args)
	}
}

// TestSchemaRejects runs the real helm CLI with bad values and checks that it fails with a message that
// names the field (and, for the misplaced imageVectorOverwrite, where it belongs).
func TestSchemaRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"imageVectorOverwrite under image", []string{"--set", "image.imageVectorOverwrite=images: []"},
			[]string{"/image/imageVectorOverwrite", "move it to the TOP-LEVEL value imageVectorOverwrite"}},
		{"imageVectorOverwrite under image as a YAML block", []string{"-f", "testdata/misplaced-imagevectoroverwrite.yaml"},
			[]string{"/image/imageVectorOverwrite", "TOP-LEVEL value imageVectorOverwrite"}},
		{"unknown top-level key", []string{"--set", "replicas=2"}, []string{"additional properties 'replicas' not allowed"}},
		{"unknown nested key", []string{"--set", "leaderElection.namespace=x"}, []string{"/leaderElection", "'namespace' not allowed"}},
		{"string for an integer", []string{"--set-string", "replicaCount=two"}, []string{"/replicaCount", "want integer"}},
		{"string for a boolean", []string{"--set-string", "leaderElection.enabled=yes"}, []string{"/leaderElection/enabled", "want boolean"}},
		{"imageVectorOverwrite not a string", []string{"--set", "imageVectorOverwrite.images=x"}, []string{"/imageVectorOverwrite", "want string"}},
		{"development image tag", []string{"--set", "image.tag=v0.1.0-dev"}, []string{"/image/tag", "must be a released tag"}},
		{"dirty image tag", []string{"--set", "image.tag=v0.1.0-dirty"}, []string{"/image/tag", "must be a released tag"}},
		{"tag in repository", []string{"--set", "image.repository=ghcr.io/x/y:v1"}, []string{"/image/repository"}},
		{"unknown controller", []string{"--set", "controller.disableControllers={heartbeats}"}, []string{"/controller/disableControllers/0"}},
		{"duration", []string{"--set", "controller.deleteWaitTimeout=2 minutes"}, []string{"/controller/deleteWaitTimeout"}},
		{"uninstall timeout", []string{"--set", "controller.uninstallTimeout=forever"}, []string{"/controller/uninstallTimeout"}},
		{"readiness gate not a boolean", []string{"--set-string", "controller.readinessGate=on"}, []string{"/controller/readinessGate", "want boolean"}},
		{"sandbox proof not a boolean", []string{"--set-string", "controller.proveSandbox=no"}, []string{"/controller/proveSandbox", "want boolean"}},
		{"log level", []string{"--set", "logLevel=verbose"}, []string{"/logLevel"}},
		{"port out of range", []string{"--set", "metricsPort=70000"}, []string{"/metricsPort"}},
		{"gardener not an object", []string{"--set", "gardener=x"}, []string{"/gardener", "want object"}},
		// The OSC mode's webhook blocks every OSC write of the seed while no replica answers.
		{"OSC mode with one replica", []string{"--set", "deliveryMode=operatingsystemconfig"}, []string{"/replicaCount", "needs replicaCount 2 or more"}},
		{"OSC mode without a PodDisruptionBudget", []string{"--set", "deliveryMode=operatingsystemconfig", "--set", "replicaCount=3",
			"--set", "podDisruptionBudget.enabled=false"}, []string{"/podDisruptionBudget/enabled", "needs podDisruptionBudget.enabled"}},
		{"OSC mode draining two replicas at once", []string{"--set", "deliveryMode=operatingsystemconfig", "--set", "replicaCount=3",
			"--set", "podDisruptionBudget.maxUnavailable=2"}, []string{"/podDisruptionBudget/maxUnavailable", "needs podDisruptionBudget.maxUnavailable 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			templateRefused(t, []string{"template", releaseName, extensionChart, "--namespace", releaseNS}, tc.args, tc.want)
		})
	}
}

// TestSnapshot compares the default rendering with the golden file (UPDATE_SNAPSHOTS=1 rewrites it).
func TestSnapshot(t *testing.T) {
	requireHelmToUpdate(t)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"testdata/gardener-extension-runtime-gvisor.default.yaml", nil},
		{"testdata/gardener-extension-runtime-gvisor.gardener.yaml", []string{"-f", "testdata/gardener-injected-values.yaml",
			"--set", "imageVectorOverwrite=images: []", "--set", "vpa.enabled=true"}},
		{"testdata/gardener-extension-runtime-gvisor.operatingsystemconfig.yaml", []string{"--set", "deliveryMode=operatingsystemconfig", "--set", "replicaCount=2",
			"--set", "webhook.serverPort=9443", "--set", "webhook.servicePort=8443"}},
	} {
		t.Run(filepath.Base(tc.golden), func(t *testing.T) {
			testutil.Golden(t, tc.golden, template(t, tc.args...))
		})
	}
}

// TestNoDevelopmentImageTags: no rendered image may carry a tag no registry has, and the chart's default
// image must be the one imagevector/images.yaml pins (both name the last release).
func TestNoDevelopmentImageTags(t *testing.T) {
	for _, args := range [][]string{nil, {"-f", "testdata/gardener-injected-values.yaml"}, {"--set", "vpa.enabled=true"}} {
		r := decode(t, template(t, args...))
		if len(r.imageRefs) == 0 {
			t.Fatalf("no image rendered with %v", args)
		}
		for _, ref := range r.imageRefs {
			if err := imagevector.CheckReference(ref); err != nil {
				t.Errorf("with %v: %v", args, err)
			}
		}
	}
	vector, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	img, err := vector.FindImage(imagevector.ImageNameExtension)
	if err != nil {
		t.Fatal(err)
	}
	_, c := decode(t, template(t)).deployment(t)
	// The chart pins its own image's digest (Chart.yaml), images.yaml cannot (the controller image embeds it).
	if want, image := img.String(), strings.SplitN(c.Image, "@", 2)[0]; image != want {
		t.Errorf("chart default image %s != imagevector/images.yaml %s: bump Chart.yaml appVersion and images.yaml together", c.Image, want)
	}
}

// TestPackage: `helm package` must store the root schema's content (the chart's copy of it), and the
// packaged chart must enforce it.
func TestPackage(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, err := helm(t, "package", extensionChart, "--destination", dir); err != nil {
		t.Fatalf("helm package: %v\n%s", err, stderr)
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(archives) != 1 {
		t.Fatalf("want one archive, got %v", archives)
	}
	schema, err := os.ReadFile("../values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	got := readTarEntry(t, archives[0], extensionChart[2:]+"/values.schema.json")
	if !cmp.Equal(string(schema), string(got)) {
		t.Error("packaged values.schema.json differs from the root values.schema.json")
	}
	_, stderr, err := helm(t, "template", releaseName, archives[0], "--set", "image.imageVectorOverwrite=x")
	if err == nil || !strings.Contains(stderr, "TOP-LEVEL value imageVectorOverwrite") {
		t.Errorf("packaged chart does not enforce the schema: %v\n%s", err, stderr)
	}
}

func readTarEntry(t *testing.T, archive, name string) []byte {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("%s has no %s", archive, name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			if h.Typeflag != tar.TypeReg {
				t.Fatalf("%s is not a regular file in the archive (type %c)", name, h.Typeflag)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsEnv(env []corev1.EnvVar, want corev1.EnvVar) bool {
	for _, e := range env {
		if cmp.Equal(e, want) {
			return true
		}
	}
	return false
}

func volumeFromConfigMap(volumes []corev1.Volume, name, configMap string) bool {
	for _, v := range volumes {
		if v.Name == name && v.ConfigMap != nil && v.ConfigMap.Name == configMap {
			return true
		}
	}
	return false
}

// TestTemplatePodPassThrough: the pod-level values land in the pod spec unchanged, beside (not instead of)
// the labels the chart needs.
func TestTemplatePodPassThrough(t *testing.T) {
	d, _ := decode(t, template(t, "-f", "testdata/pod-placement-values.yaml")).deployment(t)
	pod := d.Spec.Template
	if pod.Labels["team"] != "runtime" || pod.Labels["networking.gardener.cloud/to-runtime-apiserver"] != "allowed" ||
		pod.Labels["app.kubernetes.io/name"] != "gardener-extension-runtime-gvisor" {
		t.Errorf("pod labels %v", pod.Labels)
	}
	if pod.Annotations["example.com/owner"] != "runtime" {
		t.Errorf("pod annotations %v", pod.Annotations)
	}
	spec := pod.Spec
	if diff := cmp.Diff([]corev1.LocalObjectReference{{Name: "regcred"}}, spec.ImagePullSecrets); diff != "" {
		t.Errorf("imagePullSecrets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"worker.gardener.cloud/pool": "system"}, spec.NodeSelector); diff != "" {
		t.Errorf("nodeSelector (-want +got):\n%s", diff)
	}
	wantTolerations := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoSchedule}}
	if diff := cmp.Diff(wantTolerations, spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil || len(spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("affinity %+v", spec.Affinity)
	}
}
