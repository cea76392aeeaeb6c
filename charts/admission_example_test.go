// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	operatorv1alpha1 "github.com/gardener/gardener/pkg/apis/operator/v1alpha1"
	"sigs.k8s.io/yaml"
)

// TestAdmissionExample: example/extension-admission.yaml is a valid operator.gardener.cloud Extension (strict), and
// its deployment.admission.values, with the Secret references substituted as gardener-operator does, render both
// admission charts.
func TestAdmissionExample(t *testing.T) {
	data, err := os.ReadFile("../example/extension-admission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ext := &operatorv1alpha1.Extension{}
	if err := yaml.UnmarshalStrict(data, ext); err != nil {
		t.Fatalf("example/extension-admission.yaml is not an Extension: %v", err)
	}
	adm := ext.Spec.Deployment.AdmissionDeployment
	if adm == nil || adm.RuntimeCluster == nil || adm.VirtualCluster == nil || adm.Values == nil {
		t.Fatalf("want deployment.admission with runtimeCluster, virtualCluster and values: %+v", adm)
	}

	// Substitute {{ .resources.admissiontls.data.<key> }} with the fixture certificate, like gardener-operator's
	// chartutils.RenderHelmValues does with the referenced Secret's data.
	fixture, err := os.ReadFile(admissionValues)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		TLS struct{ Crt, Key, CABundle string } `json:"tls"`
	}
	if err := yaml.Unmarshal(fixture, &f); err != nil {
		t.Fatal(err)
	}
	values := string(adm.Values.Raw)
	for placeholder, v := range map[string]string{"cert": f.TLS.Crt, "key": f.TLS.Key, "ca": f.TLS.CABundle} {
		quoted, _ := json.Marshal(v)
		values = strings.ReplaceAll(values, `"{{ .resources.admissiontls.data.`+placeholder+` }}"`, string(quoted))
	}
	if strings.Contains(values, "{{") {
		t.Fatalf("unsubstituted reference in the values: %s", values)
	}
	file := writeFile(t, "values.json", values)
	templateAdmission(t, admissionRuntime, "-f", file)
	templateAdmission(t, admissionApp, "-f", file)
}
