// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"
)

// ApplicationChart is the admission's application chart (the ValidatingWebhookConfiguration), from the repository.
func ApplicationChart() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "charts", "gardener-extension-admission-runtime-gvisor", "charts", "application")
}

// RenderWebhookConfiguration renders the application chart with the real helm CLI, pointed at w (its URL and CA),
// and returns the ValidatingWebhookConfiguration it contains (decoded strictly: the chart's output is what gets
// registered, unchanged).
func RenderWebhookConfiguration(t testing.TB, helm string, w *Webhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, w.CABundle, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(helm, "template", "gvisor-admission", ApplicationChart(), "--namespace", "garden",
		"--set", "webhook.url="+w.URL, "--set-file", "tls.caBundle="+ca)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm template %s: %v\n%s", ApplicationChart(), err, stderr.String())
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(stdout.Bytes(), vwc); err != nil {
		t.Fatalf("the application chart does not render one ValidatingWebhookConfiguration: %v\n%s", err, stdout.String())
	}
	if vwc.Kind != "ValidatingWebhookConfiguration" || len(vwc.Webhooks) != 1 {
		t.Fatalf("unexpected rendering:\n%s", stdout.String())
	}
	return vwc
}
