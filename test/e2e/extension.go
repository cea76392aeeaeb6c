// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// ExtensionNamespace is where the extension chart is installed (gardenlet installs it into extension-<name>).
const ExtensionNamespace = "extension-runtime-gvisor"

// ReleaseName is the helm release of the extension chart.
const ReleaseName = "gardener-extension-runtime-gvisor"

// Install configures InstallExtension.
type Install struct {
	// Helm is the helm CLI (HELM_BIN).
	Helm string
	// Chart is the extension chart's directory (charts/gardener-extension-runtime-gvisor of the tree under test).
	Chart string
	// Values are the chart values, as an operator's values file (image, imageVectorOverwrite, controller...).
	Values map[string]any
	// Timeout bounds `helm --wait`.
	Timeout time.Duration
}

// InstallExtension installs (or upgrades) the extension chart with the real helm CLI as an operator does, and
// waits (helm --wait) until the controller's Deployment is rolled out: its pod Ready through the kubelet's
// readiness probe.
func InstallExtension(ctx context.Context, n *kubenode.Node, in Install) error {
	kubeconfig, err := n.AdminKubeconfig()
	if err != nil {
		return err
	}
	values, err := yaml.Marshal(in.Values)
	if err != nil {
		return err
	}
	valuesFile := filepath.Join(filepath.Dir(kubeconfig), "extension-values.yaml")
	if err := os.WriteFile(valuesFile, values, 0o600); err != nil {
		return err
	}
	if in.Timeout == 0 {
		in.Timeout = 3 * time.Minute
	}
	cmd := n.NetCommand(ctx, in.Helm, "upgrade", "--install", ReleaseName, in.Chart,
		"--namespace", ExtensionNamespace, "--create-namespace", "--values", valuesFile,
		"--wait", "--timeout", in.Timeout.String(), "--kubeconfig", kubeconfig)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(filepath.Dir(kubeconfig), "helm-cache"),
		"HELM_CONFIG_HOME="+filepath.Join(filepath.Dir(kubeconfig), "helm-config"), "HELM_DATA_HOME="+filepath.Join(filepath.Dir(kubeconfig), "helm-data"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("helm upgrade --install %s: %w\n%s", in.Chart, err, out)
	}
	return nil
}

// ExtensionLogs is the tail (lines per container) of every container log of the extension's pods on seed, for a
// failed test's output: a controller that never reconciled says why only there.
func ExtensionLogs(ctx context.Context, seed *kubenode.Node, lines int64) string {
	cs, err := kubernetes.NewForConfig(seed.RESTConfig())
	if err != nil {
		return err.Error()
	}
	pods, err := cs.CoreV1().Pods(ExtensionNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Sprintf("listing the pods of %s: %v", ExtensionNamespace, err)
	}
	var b strings.Builder
	for _, p := range pods.Items {
		for _, c := range p.Spec.Containers {
			raw, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: c.Name, TailLines: &lines}).DoRaw(ctx)
			if err != nil {
				raw = []byte(err.Error())
			}
			fmt.Fprintf(&b, "--- %s/%s (%s) ---\n%s\n", p.Name, c.Name, p.Status.Phase, raw)
		}
	}
	return b.String()
}
