// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"sigs.k8s.io/yaml"
)

// shoot returns a Shoot garden-dev/demo with the given workers, written as YAML list items (indented by two spaces
// under spec.provider.workers), decoded as the API server hands it to a webhook (providerConfig as JSON).
func shoot(t testing.TB, workers string) *gardencorev1beta1.Shoot {
	t.Helper()
	doc := `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: demo
  namespace: garden-dev
spec:
  cloudProfileName: local
  region: local
  provider:
    type: local
    workers:
` + indent(workers, "    ")
	s := &gardencorev1beta1.Shoot{}
	if err := yaml.UnmarshalStrict([]byte(doc), s); err != nil {
		t.Fatalf("test Shoot does not decode: %v\n%s", err, doc)
	}
	return s
}

// gvisorWorker is a containerd worker named name with a gvisor container runtime whose providerConfig is the
// given YAML (indented under providerConfig; "" for none).
func gvisorWorker(name, providerConfig string) string {
	w := "- name: " + name + "\n  minimum: 1\n  maximum: 2\n  machine:\n    type: local\n  cri:\n    name: containerd\n    containerRuntimes:\n    - type: gvisor\n"
	if providerConfig != "" {
		w += "      providerConfig:\n" + indent(providerConfig, "        ")
	}
	return w
}

// plainWorker is a containerd worker without gVisor.
func plainWorker(name string) string {
	return "- name: " + name + "\n  minimum: 1\n  maximum: 2\n  machine:\n    type: local\n  cri:\n    name: containerd\n"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// messages returns the Error() of every field error, in order.
func messages[E interface{ Error() string }](errs []E) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
