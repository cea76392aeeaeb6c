// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gardener/gardener/pkg/utils/secrets"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/admission"
)

// shootJSON is a Shoot with one containerd worker with gVisor and the given providerConfig JSON ("" for none).
func shootJSON(providerConfig string) []byte {
	pc := ""
	if providerConfig != "" {
		pc = `,"providerConfig":` + providerConfig
	}
	return []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","metadata":{"name":"demo","namespace":"garden-dev"},
"spec":{"cloudProfileName":"local","region":"local","provider":{"type":"local","workers":[
{"name":"gvisor","minimum":1,"maximum":1,"machine":{"type":"local"},"cri":{"name":"containerd","containerRuntimes":[{"type":"gvisor"` + pc + `}]}}]}}}`)
}

// newReview is the AdmissionReview v1 an API server sends for op on the Shoot garden-dev/name (obj, and old on
// update, as JSON).
func newReview(op admissionv1.Operation, name string, obj, old []byte) admissionv1.AdmissionReview {
	return admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:      "0b3e7c52-4c8f-4a52-9d5a-1f0c8b1e2a77",
			Kind:     metav1.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"},
			Resource: metav1.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"},
			Name:     name, Namespace: "garden-dev", Operation: op,
			Object: runtime.RawExtension{Raw: obj}, OldObject: runtime.RawExtension{Raw: old},
		},
	}
}

// review posts an AdmissionReview v1 over HTTPS, as the API server does, and returns the response part.
func review(t *testing.T, w *admission.Webhook, op admissionv1.Operation, obj, old []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	in := newReview(op, "demo", obj, old)
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := w.Client.Post(w.URL+"?timeout=10s", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", w.URL, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, data)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("response is not an AdmissionReview: %v\n%s", err, data)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" || out.Response == nil || out.Response.UID != in.Request.UID {
		t.Fatalf("response does not answer the review (apiVersion, kind, uid): %s", data)
	}
	return out.Response
}

// TestWebhookOverHTTPS runs the real server (app.Run) and sends it real AdmissionReviews over TLS.
func TestWebhookOverHTTPS(t *testing.T) {
	w := admission.Start(t)
	before := w.Requests(t)

	pc := "spec.provider.workers[0].cri.containerRuntimes[0].providerConfig"
	for _, tc := range []struct {
		name     string
		op       admissionv1.Operation
		obj, old []byte
		allowed  bool
		message  string
	}{
		{"create valid", admissionv1.Create, shootJSON(`{"configFlags":{"net-raw":"true"}}`), nil, true, ""},
		{"create without providerConfig", admissionv1.Create, shootJSON(""), nil, true, ""},
		{"create invalid", admissionv1.Create, shootJSON(`{"configFlags":{"net-raww":"true","debug":"yes"}}`), nil, false,
			`Shoot.core.gardener.cloud "demo" is invalid: [` +
				pc + `.configFlags[debug]: Unsupported value: "yes": supported values: "false", "true", ` +
				pc + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: cpu-num-from-quota, debug, debug-log, directfs, file-access, net-raw, nvproxy, nvproxy-allowed-driver-capabilities, overlay2, panic-signal, platform, strace, watchdog-action]`},
		{"update to invalid", admissionv1.Update, shootJSON(`{"kind":"Other"}`), shootJSON(""), false,
			`Shoot.core.gardener.cloud "demo" is invalid: ` + pc + `.kind: Unsupported value: "Other": supported values: "GVisorConfiguration"`},
		{"update keeping a stored invalid config", admissionv1.Update, shootJSON(`{"kind":"Other"}`), shootJSON(`{"kind":"Other"}`), true, ""},
		{"delete", admissionv1.Delete, nil, shootJSON(`{"kind":"Other"}`), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := review(t, w, tc.op, tc.obj, tc.old)
			if r.Allowed != tc.allowed {
				t.Fatalf("allowed = %v, want %v: %+v", r.Allowed, tc.allowed, r.Result)
			}
			if !tc.allowed {
				if r.Result == nil || r.Result.Code != http.StatusUnprocessableEntity || r.Result.Reason != metav1.StatusReasonInvalid {
					t.Errorf("want a 422 Invalid status, got %+v", r.Result)
				} else if r.Result.Message != tc.message {
					t.Errorf("message\n%s\nwant\n%s", r.Result.Message, tc.message)
				}
			}
		})
	}
	if got := w.Requests(t) - before; got != 6 {
		t.Errorf("/metrics counted %d webhook requests, want 6", got)
	}

	// A review without a request, or with a null one, is malformed: refused with 400, never allowed.
	for _, body := range []string{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`} {
		resp, err := w.Client.Post(w.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&out)
		_ = resp.Body.Close()
		if err != nil || out.Response == nil || out.Response.Allowed || out.Response.Result == nil || out.Response.Result.Code != http.StatusBadRequest {
			t.Errorf("%s: want a refusal with code 400, got %v %+v", body, err, out.Response)
		}
	}

	// The probes the runtime chart's Deployment uses.
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(w.HealthURL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
	}
	// Plain HTTP on the TLS port is refused: there is no unencrypted way in.
	if resp, err := http.Post(strings.Replace(w.URL, "https://", "http://", 1), "application/json", strings.NewReader("{}")); err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("the webhook answered plain HTTP")
		}
	}
}

// TestCertificateRotation: new files in --tls-cert-dir are served without a restart (docs/operator-guide.md,
// "Rotating the admission's serving certificate").
func TestCertificateRotation(t *testing.T) {
	w := admission.Start(t)
	first := servedCert(t, w, w.CABundle)

	// A new CA and certificate, written the way a Secret volume update lands (new files replace the old ones).
	_, ca, dir, err := secrets.SelfGenerateTLSServerCertificate("rotated", []string{"localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []string{"tls.key", "tls.crt"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(w.CertDir, "."+f)
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(w.CertDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := servedCert(t, w, nil)
		if !got.Equal(first) {
			if err := got.CheckSignatureFrom(parsePEM(t, ca.CertificatePEM)); err != nil {
				t.Fatalf("a new certificate is served, but not the rotated one: %v", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the rotated certificate is not served within 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// servedCert returns the leaf certificate the webhook port presents (verified against caPEM unless nil).
func servedCert(t *testing.T, w *admission.Webhook, caPEM []byte) *x509.Certificate {
	t.Helper()
	cfg := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} // #nosec G402 -- the certificate is checked below or by the caller
	host := strings.TrimPrefix(w.URL, "https://")
	host = host[:strings.Index(host, "/")]
	conn, err := tls.Dial("tcp", host, cfg)
	if err != nil {
		t.Fatalf("TLS to %s: %v", host, err)
	}
	defer conn.Close()
	leaf := conn.ConnectionState().PeerCertificates[0]
	if caPEM != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
			t.Fatalf("served certificate does not verify against the test CA: %v", err)
		}
	}
	return leaf
}

func parsePEM(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(data)
	if b == nil {
		t.Fatal("no PEM block")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
