// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package shootprometheus runs a real Prometheus as a shoot's Prometheus for the real-node tests: on the
// configuration prometheus-operator makes (its own code, test/tools/prometheus-config) of the ScrapeConfigs and
// PrometheusRules the extension deployed into the shoot namespace, with the shoot access token
// gardener-resource-manager's token requestor writes and the shoot RBAC of Gardener's own prometheus component.
// The seed and the shoot are one cluster, as in test/kubenode and test/envtest.
package shootprometheus

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/component"
	"github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus"
	shootprometheus "github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus/shoot"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"
)

// Prometheus is a running Prometheus process.
type Prometheus struct {
	cmd    *exec.Cmd
	log    *bytes.Buffer
	http   *http.Client
	listen string
	// Config is the generated prometheus.yaml.
	Config string
}

// Tools are the binaries of hack/tools/prometheus.sh: a real Prometheus and prometheus-config.
type Tools struct{ Prometheus, Config string }

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
}

// Label selects the shoot Prometheus' objects (Gardener's label value for it, prometheus=shoot).
var Label = "prometheus=" + shootprometheus.Label

// Start grants the shoot Prometheus its access as Gardener does, turns the shoot namespace's monitoring objects into
// a Prometheus configuration with the operator's code (scrape and evaluation intervals shortened to interval), and
// starts Prometheus on it in env; Stop ends it.
func Start(ctx context.Context, env Env, tools Tools, namespace, dir string, interval time.Duration) (*Prometheus, error) {
	c := env.Client
	token, err := shootAccess(ctx, c, namespace)
	if err != nil {
		return nil, err
	}
	objects, err := monitoringObjects(ctx, c, namespace, token)
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
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n"+env.APIServerIP+" kube-apiserver\n"), 0o644); err != nil {
		return nil, err
	}
	p := &Prometheus{log: &bytes.Buffer{}, Config: filepath.Join(out, "prometheus.yaml"), listen: env.ListenAddress}
	// /etc/hosts is the process's own (a private mount namespace): the machine's stays untouched.
	p.cmd = env.Command(context.WithoutCancel(ctx), "unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
		`mount -n --bind "$0" /etc/hosts && exec "$@"`, hosts,
		tools.Prometheus, "--config.file="+p.Config, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+env.ListenAddress, "--log.level=info")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting Prometheus: %w", err)
	}
	p.http = &http.Client{Transport: &http.Transport{DialContext: env.Dial}, Timeout: 10 * time.Second}
	err = poll(ctx, time.Minute, 200*time.Millisecond, "Prometheus ready", func() error {
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

// Stop ends Prometheus.
func (p *Prometheus) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// Log is Prometheus' output so far.
func (p *Prometheus) Log() string { return p.log.String() }

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

// Rule is one rule of /api/v1/rules.
type Rule struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
	State     string `json:"state"`
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

// shootAccess creates the shoot Prometheus' access Secret as Gardener does (gardenerutils.NewShootAccessSecret), lets
// gardener-resource-manager's token requestor fill it and grants its ServiceAccount the shoot RBAC of Gardener's
// prometheus component (its target ManagedResource, applied by gardener-resource-manager); it returns the token.
func shootAccess(ctx context.Context, c client.Client, namespace string) (string, error) {
	if err := gardenerutils.NewShootAccessSecret(shootprometheus.AccessSecretName, namespace).Reconcile(ctx, c); err != nil {
		return "", fmt.Errorf("the shoot Prometheus' access secret: %w", err)
	}
	if err := targetRBAC(ctx, c, namespace); err != nil {
		return "", err
	}
	var token string
	err := poll(ctx, time.Minute, 200*time.Millisecond, "the token requestor's token in "+shootprometheus.AccessSecretName, func() error {
		s := &corev1.Secret{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: shootprometheus.AccessSecretName}, s); err != nil {
			return err
		}
		if token = string(s.Data[resourcesv1alpha1.DataKeyToken]); token == "" {
			return fmt.Errorf("no %s in the secret yet", resourcesv1alpha1.DataKeyToken)
		}
		return nil
	})
	return token, err
}

// targetRBAC deploys Gardener's shoot prometheus component into an in-memory client and copies its target
// ManagedResource (the shoot's ClusterRole and ClusterRoleBinding for the prometheus-shoot ServiceAccount) with its
// Secrets into the seed, where gardener-resource-manager applies it to the shoot.
func targetRBAC(ctx context.Context, c client.Client, namespace string) error {
	mem := fakeclient.NewClientBuilder().WithScheme(kubernetes.SeedScheme).Build()
	values := prometheus.Values{
		Name:        shootprometheus.Label,
		ClusterType: component.ClusterTypeShoot,
		TargetCluster: &prometheus.TargetClusterValues{
			ServiceAccountName: shootprometheus.ServiceAccountName,
			ScrapesMetrics:     true,
		},
	}
	if err := prometheus.New(logr.Discard(), mem, namespace, values).Deploy(ctx); err != nil {
		return fmt.Errorf("the shoot prometheus component of Gardener: %w", err)
	}
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := mem.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "prometheus-" + shootprometheus.Label + "-target"}, mr); err != nil {
		return fmt.Errorf("the shoot prometheus component's target ManagedResource: %w", err)
	}
	for _, ref := range mr.Spec.SecretRefs {
		s := &corev1.Secret{}
		if err := mem.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, s); err != nil {
			return err
		}
		s.ResourceVersion = ""
		if err := c.Create(ctx, s); err != nil {
			return fmt.Errorf("the target ManagedResource's secret %s: %w", s.Name, err)
		}
	}
	mr.ResourceVersion = ""
	if err := c.Create(ctx, mr); err != nil {
		return fmt.Errorf("the shoot prometheus component's target ManagedResource: %w", err)
	}
	return poll(ctx, time.Minute, 200*time.Millisecond, "the target ManagedResource applied", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(mr), mr); err != nil {
			return err
		}
		for _, cond := range mr.Status.Conditions {
			if cond.Type == resourcesv1alpha1.ResourcesApplied && cond.Status == "True" {
				return nil
			}
		}
		return fmt.Errorf("not applied yet: %+v", mr.Status.Conditions)
	})
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

// poll calls check every interval until it succeeds or timeout passes; the error says what was awaited and the
// last check's error.
func poll(ctx context.Context, timeout, interval time.Duration, what string, check func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w (last: %v)", what, err, last)
	}
	return nil
}
