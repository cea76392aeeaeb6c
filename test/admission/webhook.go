// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gardener/gardener/pkg/utils/secrets"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor/app"
	gvisoradmission "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// Webhook is a running admission server.
type Webhook struct {
	// URL is the validating webhook's HTTPS URL on 127.0.0.1.
	URL string
	// CABundle is the PEM of the CA that signed the serving certificate.
	CABundle []byte
	// CertDir is the --tls-cert-dir (tls.crt, tls.key), for rotation tests.
	CertDir string
	// HealthURL and MetricsURL are the plain HTTP endpoints' base URLs.
	HealthURL, MetricsURL string
	// Client trusts CABundle.
	Client *http.Client
	done   chan error
}

// Start runs the admission's app.Run in-process until the test ends and waits until /readyz answers 200.
func Start(t testing.TB) *Webhook {
	t.Helper()
	certDir, caPEM := ServingCert(t)
	ports := testutil.FreePorts(t, 3) // the webhook, health and metrics servers
	port := ports[0]
	w := &Webhook{
		URL:        fmt.Sprintf("https://127.0.0.1:%d%s", port, gvisoradmission.WebhookPath),
		CABundle:   caPEM,
		CertDir:    certDir,
		HealthURL:  fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
		MetricsURL: fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
		Client:     ClientTrusting(t, caPEM),
		done:       make(chan error, 1),
	}
	ctx, cancel := context.WithCancel(context.Background())
	args := []string{
		"--webhook-bind-address=127.0.0.1", "--webhook-port=" + strconv.Itoa(port), "--tls-cert-dir=" + certDir,
		"--health-bind-address=" + w.HealthURL[len("http://"):], "--metrics-bind-address=" + w.MetricsURL[len("http://"):],
		"--log-level=error",
	}
	go func() { w.done <- app.Run(ctx, args, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-w.done:
			if err != nil {
				t.Errorf("admission server: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("admission server did not stop within 15s")
		}
	})

	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(w.HealthURL + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return w
			}
		}
		select {
		case err := <-w.done:
			t.Fatalf("admission server exited before it was ready: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("admission server not ready within 20s (last: %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// requestsTotal matches controller-runtime's counter of webhook requests served, per HTTP code.
var requestsTotal = regexp.MustCompile(`(?m)^controller_runtime_webhook_requests_total\{code="(\d+)",webhook="` +
	regexp.QuoteMeta(gvisoradmission.WebhookPath) + `"\} (\d+)$`)

// Requests returns how many admission requests the server answered so far (all HTTP codes), read from its
// /metrics. The counter is process-wide (controller-runtime's registry): compare differences.
func (w *Webhook) Requests(t testing.TB) int {
	t.Helper()
	resp, err := http.Get(w.MetricsURL + "/metrics")
	if err != nil {
		t.Fatalf("reading the admission's metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range requestsTotal.FindAllStringSubmatch(string(body), -1) {
		c, _ := strconv.Atoi(m[2])
		n += c
	}
	return n
}

// ServingCert writes a fresh CA-signed serving certificate for 127.0.0.1 and localhost into a temporary directory
// (tls.crt, tls.key) and returns it with the CA's PEM.
func ServingCert(t testing.TB) (dir string, caPEM []byte) {
	t.Helper()
	cert, ca, dir, err := secrets.SelfGenerateTLSServerCertificate("gardener-extension-admission-runtime-gvisor",
		[]string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatalf("generating the serving certificate: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if _, err := os.Stat(filepath.Join(dir, "tls.crt")); err != nil || cert == nil {
		t.Fatalf("serving certificate not written: %v", err)
	}
	return dir, ca.CertificatePEM
}

// ClientTrusting returns an HTTPS client that trusts only caPEM.
func ClientTrusting(t testing.TB, caPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("CA PEM does not parse")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}
