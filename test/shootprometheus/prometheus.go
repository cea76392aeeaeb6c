// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package shootprometheus runs a real Prometheus as a shoot's Prometheus for the real-node tests: on the
// configuration prometheus-operator makes (its own code, test/tools/prometheus-config) of the ScrapeConfigs and
// PrometheusRules the extension deployed into the shoot namespace, with the shoot access token
// gardener-resource-manager's token requestor writes and the shoot RBAC of Gardener's own prometheus component; and,
// where asked, the shoot's kube-state-metrics beside it as Gardener deploys it (kubestatemetrics.go), which the
// Prometheus finds with Gardener's ScrapeConfig and its seed identity. The seed and the shoot are one cluster, as in
// test/kubenode and test/envtest.
package shootprometheus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/component"
	"github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus"
	shootprometheus "github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus/shoot"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Prometheus is a running Prometheus process.
type Prometheus struct {
	cmd    *exec.Cmd
	log    *bytes.Buffer
	http   *http.Client
	listen string
	ksm    *KubeStateMetrics
	// Config is the generated prometheus.yaml.
	Config string
}

// Tools are the binaries of hack/tools/prometheus.sh, a real Prometheus and prometheus-config, and optionally the
// kube-state-metrics of hack/tools/kube-state-metrics.sh.
type Tools struct {
	Prometheus, Config string
	// KubeStateMetrics, when set, runs the shoot's kube-state-metrics as Gardener deploys it beside the Prometheus,
	// which scrapes it with Gardener's ScrapeConfig (Env.Listen and Env.CA are needed then).
	KubeStateMetrics string
}

// Env is where Prometheus runs: a network in which APIServerIP:443 is the cluster's API server (kube-apiserver, the
// name the ScrapeConfigs use as in a shoot namespace, resolves to it) and the scrape targets are reachable.
type Env struct {
	// Client reaches the cluster (seed and shoot at once).
	Client client.Client
	// Command returns a command that runs argv in that network.
	Command func(ctx context.Context, argv ...string) *exec.Cmd
	// Dial opens connections in that network (to Prometheus' API).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// APIServerIP is the address kube-apiserver resolves to; the API server must serve on its port 443.
	APIServerIP string
	// ListenAddress is where Prometheus serves its API in that network.
	ListenAddress string
	// Listen opens listeners in that network (kube-state-metrics' Service port, which a kube-proxy would serve).
	Listen func(network, addr string) (net.Listener, error)
	// CA is the API server's CA bundle (the seed identity's and the shoot kubeconfig's).
	CA []byte
}

// Label selects the shoot Prometheus' objects (Gardener's label value for it, prometheus=shoot).
var Label = "prometheus=" + shootprometheus.Label

// Start grants the shoot Prometheus its access as Gardener does, runs the shoot's kube-state-metrics when tools has
// it, turns the shoot namespace's monitoring objects into a Prometheus configuration with the operator's code (scrape
// and evaluation intervals shortened to interval), and starts Prometheus on it in env; Stop ends both.
func Start(ctx context.Context, env Env, tools Tools, namespace, dir string, interval time.Duration) (*Prometheus, error) {
	c := env.Client
	var ksm *KubeStateMetrics
	if tools.KubeStateMetrics != "" {
		var err error
		if ksm, err = startKubeStateMetrics(ctx, env, tools.KubeStateMetrics, namespace, filepath.Join(dir, "kube-state-metrics")); err != nil {
			return nil, err
		}
	}
	a, err := grantAccess(ctx, c, namespace, ksm != nil)
	if err != nil {
		ksm.Stop()
		return nil, err
	}
	p, err := start(ctx, env, tools, namespace, dir, interval, a)
	if err != nil {
		ksm.Stop()
		return nil, err
	}
	p.ksm = ksm
	return p, nil
}

// start runs Prometheus on the operator's configuration of the shoot namespace's monitoring objects, with the
// access a grants.
func start(ctx context.Context, env Env, tools Tools, namespace, dir string, interval time.Duration, a *access) (*Prometheus, error) {
	objects, err := monitoringObjects(ctx, env.Client, namespace, a.shootToken)
	if err != nil {
		return nil, err
	}
	objectsFile := filepath.Join(dir, "objects.yaml")
	if err := os.WriteFile(objectsFile, objects, 0o600); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "config")
	gen := exec.CommandContext(ctx, tools.Config, "--objects", objectsFile, "--out", out, "--namespace", namespace,
		"--selector", Label, "--scrape-interval", interval.String(), "--evaluation-interval", interval.String())
	if msg, err := gen.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("prometheus-operator's config generator on the shoot namespace's monitoring objects: %w\n%s", err, msg)
	}
	hosts := map[string]string{"kube-apiserver": env.APIServerIP}
	if a.seedToken != "" {
		hosts[kubeStateMetricsHost(namespace)] = kubeStateMetricsServiceIP
	}
	hostsFile, err := writeHosts(filepath.Join(dir, "hosts"), hosts)
	if err != nil {
		return nil, err
	}
	p := &Prometheus{log: &bytes.Buffer{}, Config: filepath.Join(out, "prometheus.yaml"), listen: env.ListenAddress}
	argv := []string{tools.Prometheus, "--config.file=" + p.Config, "--storage.tsdb.path=" + filepath.Join(dir, "tsdb"),
		"--web.listen-address=" + env.ListenAddress, "--log.level=info"}
	var (
		runDirs map[string]string
		environ []string
	)
	if a.seedToken != "" {
		// The seed identity as a pod has it: client-go's in-cluster configuration, which the kubernetes_sd_configs
		// without an api_server (kube-state-metrics') use, reads the token and CA from this fixed path and the
		// API server's address from the environment.
		sa := filepath.Join(dir, "serviceaccount")
		if err := writeFiles(sa, map[string][]byte{"token": []byte(a.seedToken), "ca.crt": env.CA, "namespace": []byte(namespace)}); err != nil {
			return nil, err
		}
		runDirs = map[string]string{inClusterSecrets: sa}
		environ = []string{"KUBERNETES_SERVICE_HOST=" + env.APIServerIP, "KUBERNETES_SERVICE_PORT=" + strconv.Itoa(apiServerPort)}
	}
	p.cmd = privateMounts(ctx, env, hostsFile, runDirs, environ, argv...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting Prometheus: %w", err)
	}
	p.http = &http.Client{Transport: &http.Transport{DialContext: env.Dial}, Timeout: 10 * time.Second}
	err = poll(ctx, "Prometheus ready", func() error {
		resp, err := p.http.Get("http://" + p.listen + "/-/ready")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/-/ready: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("%w\n%s", err, p.Log())
	}
	return p, nil
}

// Stop ends Prometheus and the shoot's kube-state-metrics it scrapes.
func (p *Prometheus) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
	p.ksm.Stop()
}

// Log is Prometheus' output so far, and kube-state-metrics' where it runs.
func (p *Prometheus) Log() string {
	if p.ksm == nil {
		return p.log.String()
	}
	return p.log.String() + "\n--- kube-state-metrics ---\n" + p.ksm.log.String()
}

// Target is one active target of /api/v1/targets.
type Target struct {
	Labels    map[string]string `json:"labels"`
	ScrapeURL string            `json:"scrapeUrl"`
	Health    string            `json:"health"`
	LastError string            `json:"lastError"`
}

// Targets returns the active targets.
func (p *Prometheus) Targets() ([]Target, error) {
	var data struct {
		ActiveTargets []Target `json:"activeTargets"`
	}
	return data.ActiveTargets, p.get("/api/v1/targets?state=active", &data)
}

// Sample is one series of an instant query's vector.
type Sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// Float is the sample's value.
func (s Sample) Float() float64 {
	var f float64
	if v, ok := s.Value[1].(string); ok {
		_, _ = fmt.Sscan(v, &f)
	}
	return f
}

// Query runs an instant PromQL query.
func (p *Prometheus) Query(query string) ([]Sample, error) {
	var data struct {
		ResultType string   `json:"resultType"`
		Result     []Sample `json:"result"`
	}
	if err := p.get("/api/v1/query?query="+url.QueryEscape(query), &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", query, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: a %s, want a vector", query, data.ResultType)
	}
	return data.Result, nil
}

// Range is one series of a range query's matrix.
type Range struct {
	Metric map[string]string `json:"metric"`
	Values [][2]any          `json:"values"`
}

// Points are the series' timestamps (Unix seconds) and values.
func (r Range) Points() map[int64]float64 {
	out := map[int64]float64{}
	for _, v := range r.Values {
		ts, _ := v[0].(float64)
		var f float64
		if s, ok := v[1].(string); ok {
			_, _ = fmt.Sscan(s, &f)
		}
		out[int64(ts)] = f
	}
	return out
}

// QueryRange runs a PromQL range query from start to end with step.
func (p *Prometheus) QueryRange(query string, start, end time.Time, step time.Duration) ([]Range, error) {
	var data struct {
		ResultType string  `json:"resultType"`
		Result     []Range `json:"result"`
	}
	q := url.Values{}
	q.Set("query", query)
	q.Set("start", strconv.FormatInt(start.Unix(), 10))
	q.Set("end", strconv.FormatInt(end.Unix(), 10))
	q.Set("step", strconv.FormatFloat(step.Seconds(), 'f', -1, 64))
	if err := p.get("/api/v1/query_range?"+q.Encode(), &data); err != nil {
		return nil, fmt.Errorf("range query %s: %w", query, err)
	}
	if data.ResultType != "matrix" {
		return nil, fmt.Errorf("range query %s: a %s, want a matrix", query, data.ResultType)
	}
	return data.Result, nil
}

// Alert is one alert of /api/v1/alerts, pending or firing.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
}

// Alerts returns the active alerts.
func (p *Prometheus) Alerts() ([]Alert, error) {
	var data struct {
		Alerts []Alert `json:"alerts"`
	}
	return data.Alerts, p.get("/api/v1/alerts", &data)
}

// RuleFiles is a glob of the rule files Prometheus evaluates (the operator's rendering of the PrometheusRules), for
// promtool to evaluate the same rules.
func (p *Prometheus) RuleFiles() string {
	return filepath.Join(filepath.Dir(p.Config), "rules", "*.yaml")
}

// Rule is one rule of /api/v1/rules.
type Rule struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
	State     string `json:"state"`
	// Duration is an alert's for, in seconds.
	Duration float64 `json:"duration"`
}

// Rules returns every rule of every group, as Prometheus evaluated them last.
func (p *Prometheus) Rules() ([]Rule, error) {
	var data struct {
		Groups []struct {
			Rules []Rule `json:"rules"`
		} `json:"groups"`
	}
	if err := p.get("/api/v1/rules", &data); err != nil {
		return nil, err
	}
	var out []Rule
	for _, g := range data.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

func (p *Prometheus) get(path string, data any) error {
	resp, err := p.http.Get("http://" + p.listen + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var envelope struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return fmt.Errorf("GET %s: %s: %w", path, resp.Status, err)
	}
	if envelope.Status != "success" {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, envelope.Error)
	}
	return json.Unmarshal(envelope.Data, data)
}

// access is what Gardener gives the shoot Prometheus: the token of its shoot access Secret and, with seedIdentity,
// the token of its ServiceAccount in the seed.
type access struct{ shootToken, seedToken string }

// grantAccess creates the shoot Prometheus' access Secret as Gardener does (gardenerutils.NewShootAccessSecret),
// lets gardener-resource-manager's token requestor fill it and grants its ServiceAccount the shoot RBAC of Gardener's
// prometheus component (its target ManagedResource, applied by gardener-resource-manager). With seedIdentity it also
// creates the component's ServiceAccount, Role and RoleBinding in the seed (the Role lets the Prometheus discover
// the services, endpoints and pods of the shoot namespace, as the shoot's kube-state-metrics scrape does) and
// requests a token of that ServiceAccount.
func grantAccess(ctx context.Context, c client.Client, namespace string, seedIdentity bool) (*access, error) {
	mem := inMemorySeed()
	values := prometheus.Values{
		Name:        shootprometheus.Label,
		ClusterType: component.ClusterTypeShoot,
		TargetCluster: &prometheus.TargetClusterValues{
			ServiceAccountName: shootprometheus.ServiceAccountName,
			ScrapesMetrics:     true,
		},
	}
	if err := prometheus.New(logr.Discard(), mem, namespace, values).Deploy(ctx); err != nil {
		return nil, fmt.Errorf("the shoot prometheus component of Gardener: %w", err)
	}
	if err := gardenerutils.NewShootAccessSecret(shootprometheus.AccessSecretName, namespace).Reconcile(ctx, c); err != nil {
		return nil, fmt.Errorf("the shoot Prometheus' access secret: %w", err)
	}
	if err := copyShootManagedResources(ctx, mem, c, namespace); err != nil {
		return nil, err
	}
	a := &access{}
	var err error
	if a.shootToken, err = waitToken(ctx, c, namespace, shootprometheus.AccessSecretName); err != nil || !seedIdentity {
		return a, err
	}
	a.seedToken, err = seedToken(ctx, c, mem, namespace)
	return a, err
}

// seedToken creates the shoot Prometheus' ServiceAccount, Role and RoleBinding in the seed as Gardener's component
// put them into its seed ManagedResource (mem), and returns a token of that ServiceAccount.
func seedToken(ctx context.Context, c, mem client.Client, namespace string) (string, error) {
	objs, err := seedObjects(ctx, mem, namespace)
	if err != nil {
		return "", err
	}
	var sa *corev1.ServiceAccount
	for _, obj := range objs {
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			sa = o
		case *rbacv1.Role, *rbacv1.RoleBinding:
		default:
			continue
		}
		if obj.GetNamespace() != namespace {
			continue // the RoleBinding in the garden namespace: nothing of it is scraped here
		}
		if err := createCopy(ctx, c, obj); err != nil {
			return "", fmt.Errorf("the shoot Prometheus' %T %s in the seed: %w", obj, obj.GetName(), err)
		}
	}
	if sa == nil {
		return "", errors.New("the shoot prometheus component of Gardener deployed no ServiceAccount into the seed")
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("a token of the shoot Prometheus' ServiceAccount %s: %w", sa.Name, err)
	}
	return tr.Status.Token, nil
}

// monitoringObjects are the shoot Prometheus' ScrapeConfigs and PrometheusRules in the namespace, as stored, and
// its access Secret carrying token, as YAML documents.
func monitoringObjects(ctx context.Context, c client.Client, namespace, token string) ([]byte, error) {
	var docs []string
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "monitoring.coreos.com", Version: "v1alpha1", Kind: "ScrapeConfigList"},
		{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRuleList"},
	} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		key, value, _ := strings.Cut(Label, "=")
		if err := c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{key: value}); err != nil {
			return nil, fmt.Errorf("listing %s in %s: %w", gvk.Kind, namespace, err)
		}
		if len(list.Items) == 0 {
			return nil, fmt.Errorf("no %s with %s in %s: the extension deployed no shoot monitoring", strings.TrimSuffix(gvk.Kind, "List"), Label, namespace)
		}
		for _, item := range list.Items {
			unstructured.RemoveNestedField(item.Object, "metadata", "managedFields")
			raw, err := yaml.Marshal(item.Object)
			if err != nil {
				return nil, err
			}
			docs = append(docs, string(raw))
		}
	}
	secret := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		Data:     map[string][]byte{resourcesv1alpha1.DataKeyToken: []byte(token)},
	}
	secret.Name, secret.Namespace = shootprometheus.AccessSecretName, namespace
	raw, err := yaml.Marshal(secret)
	if err != nil {
		return nil, err
	}
	docs = append(docs, string(raw))
	return []byte(strings.Join(docs, "---\n")), nil
}

// errGaveUp, wrapped into a check's error, ends poll at once: what it waits for cannot come any more.
var errGaveUp = errors.New("gave up")

// poll calls check every 200 ms until it succeeds, a minute passes or it returns errGaveUp; the error says what was
// awaited and the last check's error.
func poll(ctx context.Context, what string, check func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		last = check()
		if errors.Is(last, errGaveUp) {
			return false, last
		}
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w (last: %v)", what, err, last)
	}
	return nil
}
