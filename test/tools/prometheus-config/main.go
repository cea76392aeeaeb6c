// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command prometheus-config makes of prometheus-operator objects what the operator makes of them for a Prometheus,
// with the operator's own code, so that a test can run a real Prometheus on exactly that:
//
//	prometheus-config --objects FILE --out DIR --namespace NS --selector KEY=VALUE [--scrape-interval 5s]
//	                  [--evaluation-interval 5s] [--prometheus-version v3.16.0]
//
// FILE holds YAML documents: ScrapeConfigs, PrometheusRules and the Secrets they reference, of namespace NS. The
// Prometheus is one in NS whose ScrapeConfig and rule selectors are KEY=VALUE (Gardener's shoot Prometheus selects
// prometheus=shoot). The operator's resource selector checks every ScrapeConfig as it does on a seed, where one it
// rejects is dropped with only an event; here a rejected or unselected object is an error naming it. Its config
// generator writes DIR/prometheus.yaml (the Secrets' values resolved through its asset store, as it writes them
// into the Secret it mounts), and every PrometheusRule, checked with the operator's ValidateRule (Prometheus'
// rulefmt), becomes DIR/rules/NS-NAME.yaml, the file the operator puts into the rule ConfigMap; rule_files points
// there instead of the operator's mount path /etc/prometheus/rules.
//
// It is its own module: github.com/prometheus-operator/prometheus-operator v0.85.0 (the newest release of the
// operator's main module the module proxy here serves) and its dependencies stay out
// of the extension's go.mod.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"github.com/prometheus-operator/prometheus-operator/pkg/assets"
	"github.com/prometheus-operator/prometheus-operator/pkg/operator"
	prompkg "github.com/prometheus-operator/prometheus-operator/pkg/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	goyaml "gopkg.in/yaml.v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "prometheus-config:", err)
		os.Exit(1)
	}
}

type options struct {
	objects, out, namespace, selector, scrapeInterval, evaluationInterval, version string
	key, value                                                                     string
}

func parseOptions(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("prometheus-config", flag.ContinueOnError)
	fs.StringVar(&o.objects, "objects", "", "YAML file of ScrapeConfigs, PrometheusRules and their Secrets")
	fs.StringVar(&o.out, "out", "", "directory for prometheus.yaml and rules/")
	fs.StringVar(&o.namespace, "namespace", "", "the Prometheus' namespace (the objects')")
	fs.StringVar(&o.selector, "selector", "", "KEY=VALUE: the Prometheus' ScrapeConfig and rule selector")
	fs.StringVar(&o.scrapeInterval, "scrape-interval", "30s", "the Prometheus' scrapeInterval")
	fs.StringVar(&o.evaluationInterval, "evaluation-interval", "30s", "the Prometheus' evaluationInterval")
	fs.StringVar(&o.version, "prometheus-version", "v3.16.0", "the Prometheus version the configuration is for")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var ok bool
	o.key, o.value, ok = strings.Cut(o.selector, "=")
	if o.objects == "" || o.out == "" || o.namespace == "" || !ok {
		return nil, errors.New("--objects, --out, --namespace and --selector KEY=VALUE are required")
	}
	return o, nil
}

func run(args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(o.objects)
	if err != nil {
		return err
	}
	objs, err := decode(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", o.objects, err)
	}
	p := o.prometheus()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	kube := fake.NewClientset(objs.secrets...).CoreV1()
	store := assets.NewStoreBuilder(kube, kube)
	valid, err := selectScrapeConfigs(context.Background(), logger, p, store, objs.scrapeConfigs, o.selector)
	if err != nil {
		return err
	}
	ruleNames, err := writeRules(o, objs.rules)
	if err != nil {
		return err
	}
	cg, err := prompkg.NewConfigGenerator(logger, p)
	if err != nil {
		return err
	}
	cfg, err := cg.GenerateServerConfiguration(p, nil, nil, nil, valid, store, nil, nil, nil, []string{"rules"})
	if err != nil {
		return fmt.Errorf("the operator's config generator: %w", err)
	}
	cfg, err = withRuleFiles(cfg, filepath.Join(o.out, "rules"), ruleNames)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "prometheus.yaml"), cfg, 0o600)
}

// prometheus is the Prometheus the objects are for: in the namespace, selecting ScrapeConfigs and rules by label.
func (o *options) prometheus() *monitoringv1.Prometheus {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{o.key: o.value}}
	return &monitoringv1.Prometheus{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: o.namespace},
		Spec: monitoringv1.PrometheusSpec{
			CommonPrometheusFields: monitoringv1.CommonPrometheusFields{
				Version:              o.version,
				ScrapeInterval:       monitoringv1.Duration(o.scrapeInterval),
				ScrapeConfigSelector: selector,
			},
			EvaluationInterval: monitoringv1.Duration(o.evaluationInterval),
			RuleSelector:       selector,
		},
	}
}

// selectScrapeConfigs runs the operator's resource selector on the ScrapeConfigs and fails for each one it does
// not take, with the operator's event saying why.
func selectScrapeConfigs(ctx context.Context, logger *slog.Logger, p *monitoringv1.Prometheus, store *assets.StoreBuilder, scs []*monitoringv1alpha1.ScrapeConfig, selector string) (map[string]*monitoringv1alpha1.ScrapeConfig, error) {
	recorder := record.NewFakeRecorder(100)
	rs, err := prompkg.NewResourceSelector(logger, p, store, nil, operator.NewMetrics(prometheus.NewRegistry()), recorder)
	if err != nil {
		return nil, err
	}
	selected, err := rs.SelectScrapeConfigs(ctx, func(ns string, sel labels.Selector, appendFn cache.AppendFunc) error {
		for _, sc := range scs {
			if sc.Namespace == ns && sel.Matches(labels.Set(sc.Labels)) {
				appendFn(sc)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the operator's selection of ScrapeConfigs: %w", err)
	}
	valid := selected.ValidResources()
	for _, sc := range scs {
		if _, ok := valid[sc.Namespace+"/"+sc.Name]; !ok {
			return nil, fmt.Errorf("the operator does not take ScrapeConfig %s/%s (not selected by %s, or rejected): %s", sc.Namespace, sc.Name, selector, events(recorder))
		}
	}
	return valid, nil
}

// writeRules checks each PrometheusRule as the operator does and writes its rule file; it returns the files' names.
func writeRules(o *options, rules []*monitoringv1.PrometheusRule) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(o.out, "rules"), 0o755); err != nil {
		return nil, err
	}
	var names []string
	for _, r := range rules {
		if r.Labels[o.key] != o.value {
			return nil, fmt.Errorf("PrometheusRule %s/%s is not selected by %s", r.Namespace, r.Name, o.selector)
		}
		if errs := operator.ValidateRule(*r.Spec.DeepCopy()); len(errs) > 0 {
			return nil, fmt.Errorf("the operator rejects PrometheusRule %s/%s: %w", r.Namespace, r.Name, errors.Join(errs...))
		}
		content, err := yaml.Marshal(r.Spec)
		if err != nil {
			return nil, err
		}
		name := r.Namespace + "-" + r.Name
		if err := os.WriteFile(filepath.Join(o.out, "rules", name+".yaml"), content, 0o644); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// withRuleFiles points rule_files at dir's files instead of the operator's mount path.
func withRuleFiles(cfg []byte, dir string, names []string) ([]byte, error) {
	var m goyaml.MapSlice
	if err := goyaml.Unmarshal(cfg, &m); err != nil {
		return nil, err
	}
	sort.Strings(names)
	var files []string
	for _, n := range names {
		files = append(files, filepath.Join(dir, n+".yaml"))
	}
	i := slices.IndexFunc(m, func(it goyaml.MapItem) bool { return it.Key == "rule_files" })
	if i < 0 {
		m = append(m, goyaml.MapItem{Key: "rule_files", Value: files})
	} else {
		m[i].Value = files
	}
	return goyaml.Marshal(m)
}

func events(r *record.FakeRecorder) string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			if len(out) == 0 {
				return "no event"
			}
			return strings.Join(out, "; ")
		}
	}
}

type objects struct {
	scrapeConfigs []*monitoringv1alpha1.ScrapeConfig
	rules         []*monitoringv1.PrometheusRule
	secrets       []runtime.Object
}

// decode reads the YAML documents strictly: a field these types do not know fails, naming the object.
func decode(raw []byte) (*objects, error) {
	out := &objects{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, err
		}
		var obj any
		switch meta.Kind {
		case "":
			continue // an empty document
		case monitoringv1alpha1.ScrapeConfigsKind:
			sc := &monitoringv1alpha1.ScrapeConfig{}
			out.scrapeConfigs, obj = append(out.scrapeConfigs, sc), sc
		case monitoringv1.PrometheusRuleKind:
			pr := &monitoringv1.PrometheusRule{}
			out.rules, obj = append(out.rules, pr), pr
		case "Secret":
			s := &corev1.Secret{}
			out.secrets, obj = append(out.secrets, s), s
		default:
			return nil, fmt.Errorf("a %s: only ScrapeConfigs, PrometheusRules and Secrets", meta.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("a %s that prometheus-operator v0.85.0's types do not take: %w", meta.Kind, err)
		}
	}
}
