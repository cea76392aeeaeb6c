// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScrapeConfig is the shoot Prometheus' scrape of the gVisor metrics of every installation pod in the shoot: the
// pods of the DaemonSets gvisor-installation-<pool> in kube-system, on their container port named "metrics",
// reached through the shoot API server's pod proxy (/api/v1/namespaces/kube-system/pods/<pod>:<port>/proxy/metrics)
// with the shoot Prometheus' own token, as Gardener's shoot Prometheus reaches every target inside the shoot.
//
// Its spec is what Gardener's prometheus/shoot.ClusterComponentScrapeConfigSpec returns for a pod-role
// target (a test compares the two), plus two relabelings of ours: keep only pods labelled
// app.kubernetes.io/name=gvisor-installation (the name prefix alone would also match a user's pod called
// gvisor-installation-x), and the pool as a label (app.kubernetes.io/instance). The package does not import
// Gardener's function because its package pulls every shoot scrape config's component into the controller.
func ScrapeConfig(namespace string) *monitoringv1alpha1.ScrapeConfig {
	spec := clusterComponentScrapeConfigSpec()
	spec.RelabelConfigs = append(spec.RelabelConfigs,
		monitoringv1.RelabelConfig{
			SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_label_app_kubernetes_io_name"},
			Action:       "keep",
			Regex:        "gvisor-installation",
		},
		monitoringv1.RelabelConfig{
			SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_label_app_kubernetes_io_instance"},
			TargetLabel:  "pool",
		},
	)
	return shootScrapeConfig(ObjectName, namespace, spec)
}

// shootScrapeConfig is the ScrapeConfig name for the shoot Prometheus in namespace, with the CRD's default
// relabeling action written out (defaultActions).
func shootScrapeConfig(name, namespace string, spec monitoringv1alpha1.ScrapeConfigSpec) *monitoringv1alpha1.ScrapeConfig {
	defaultActions(spec.RelabelConfigs)
	defaultActions(spec.MetricRelabelConfigs)
	return &monitoringv1alpha1.ScrapeConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: monitoringv1alpha1.SchemeGroupVersion.String(), Kind: monitoringv1alpha1.ScrapeConfigsKind},
		ObjectMeta: objectMeta(name, namespace, map[string]string{"prometheus": ShootPrometheus}),
		Spec:       spec,
	}
}

// shootAccess is how the shoot Prometheus authenticates at the shoot's API server (its token) and how it does not
// verify it (Gardener's choice for in-shoot targets: the shoot Prometheus does not get the shoot's CA bundle here).
func shootAccess() (*monitoringv1.SafeAuthorization, *monitoringv1.SafeTLSConfig) {
	return &monitoringv1.SafeAuthorization{Credentials: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: accessSecretName},
			Key:                  "token",
		}},
		&monitoringv1.SafeTLSConfig{InsecureSkipVerify: ptr(true)}
}

// keepScrapedMetrics keeps only ScrapedMetrics of a scrape.
func keepScrapedMetrics() []monitoringv1.RelabelConfig {
	return []monitoringv1.RelabelConfig{{
		SourceLabels: []monitoringv1.LabelName{"__name__"},
		Action:       "keep",
		Regex:        `^(` + strings.Join(ScrapedMetrics, "|") + `)$`,
	}}
}

// clusterComponentScrapeConfigSpec is Gardener's ClusterComponentScrapeConfigSpec(ScrapeJob, {Role: pod,
// PodNamePrefix: InstallationPodPrefix, ContainerName: ".+", ContainerPortName: MetricsPortName}, ScrapedMetrics...):
// any container of the pod may carry the port (the node's metric server is one container of the installation pod).
func clusterComponentScrapeConfigSpec() monitoringv1alpha1.ScrapeConfigSpec {
	token, insecure := shootAccess()
	return monitoringv1alpha1.ScrapeConfigSpec{
		HonorLabels:   ptr(false),
		Scheme:        ptr(monitoringv1.SchemeHTTPS),
		TLSConfig:     insecure,
		Authorization: token,
		KubernetesSDConfigs: []monitoringv1alpha1.KubernetesSDConfig{{
			Role:          monitoringv1alpha1.KubernetesRolePod,
			APIServer:     ptr("https://kube-apiserver"),
			Namespaces:    &monitoringv1alpha1.NamespaceDiscovery{Names: []string{metav1.NamespaceSystem}},
			Authorization: token,
			TLSConfig:     insecure,
		}},
		RelabelConfigs: []monitoringv1.RelabelConfig{
			{Action: "replace", Replacement: ptr(ScrapeJob), TargetLabel: "job"},
			{TargetLabel: "type", Replacement: ptr("shoot")},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_name"}, Action: "keep", Regex: InstallationPodPrefix + ".*"},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_container_name", "__meta_kubernetes_pod_container_port_name"},
				Action: "keep", Regex: ".+;" + MetricsPortName},
			{Action: "labelmap", Regex: `__meta_kubernetes_service_label_(.+)`},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_name"}, TargetLabel: "pod"},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_node_name"}, TargetLabel: "node"},
			{TargetLabel: "__address__", Replacement: ptr("kube-apiserver:443")},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_name", "__meta_kubernetes_pod_container_port_number"},
				Regex: `(.+);(.+)`, TargetLabel: "__metrics_path__",
				Replacement: ptr("/api/v1/namespaces/" + metav1.NamespaceSystem + "/pods/${1}:${2}/proxy/metrics")},
		},
		MetricRelabelConfigs: keepScrapedMetrics(),
	}
}

// defaultActions writes the CRD's default relabeling action (replace) where a relabeling has none, so the object
// is stored as it is built, and the controller's comparison with what is stored finds no difference when nothing
// changed (the API server fills in schema defaults).
func defaultActions(rs []monitoringv1.RelabelConfig) {
	for i := range rs {
		if rs[i].Action == "" {
			rs[i].Action = "replace"
		}
	}
}

func ptr[T any](v T) *T { return &v }

func objectMeta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}
