// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"testing"

	"github.com/gardener/gardener/pkg/chartrenderer"
	"k8s.io/apimachinery/pkg/version"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// benchValues are one realistic pool: Gardener's labels, Istio's net-raw and debug logging.
func benchValues(b *testing.B) render.InstallationValues {
	v, err := render.ForContainerRuntime(containerRuntime("gvisor",
		`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",`+
			`"configFlags":{"net-raw":"true","debug":"true","debug-log":"/var/log/runsc/"}}`))
	if err != nil {
		b.Fatal(err)
	}
	v.Image = pinnedImage(b) // the same values for both renderers, image included
	return v
}

// BenchmarkRenderInstallation renders one pool's installation chart with this library (charts parsed once,
// schema compiled once, output strictly decoded) and with Gardener's pkg/chartrenderer (Helm v4; loads the
// chart from the embedded FS on every call, as its API requires), on the same embedded chart and values.
// Run: go test -run '^$' -bench RenderInstallation -benchmem ./pkg/render/
func BenchmarkRenderInstallation(b *testing.B) {
	r := newRenderer(b, "v0.1.0-dev", "")
	values := benchValues(b)

	b.Run("render=ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := r.Installation(values)
			if err != nil {
				b.Fatal(err)
			}
			if len(m.Files()) != 2 {
				b.Fatal("want 2 objects")
			}
		}
	})

	b.Run("render=gardener-chartrenderer", func(b *testing.B) {
		cr := chartrenderer.NewWithServerVersion(&version.Info{GitVersion: "v1.35.0", Major: "1", Minor: "35"})
		b.ReportAllocs()
		for b.Loop() {
			rendered, err := cr.RenderEmbeddedFS(charts.Internal, charts.InstallationChartPath, "gvisor-installation", "kube-system", values)
			if err != nil {
				b.Fatal(err)
			}
			if len(rendered.AsSecretData()) != 2 {
				b.Fatal("want 2 objects")
			}
		}
	})
}

// BenchmarkRenderPool renders everything one pool needs (RuntimeClass chart + installation chart), both ways.
func BenchmarkRenderPool(b *testing.B) {
	r := newRenderer(b, "v0.1.0-dev", "")
	values := benchValues(b)

	b.Run("render=ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.RuntimeClass(render.RuntimeClassValues{}); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Installation(values); err != nil {
				b.Fatal(err)
			}
		}
	})

	// The readiness gate adds 5 objects (policy, binding, ClusterRole, ServiceAccount, ClusterRoleBinding) and
	// changes 2 (the RuntimeClass's selector, the DaemonSet's token and args): what switching it on costs per render.
	b.Run("render=ours,readinessGate=on", func(b *testing.B) {
		gated := values
		gated.ReadinessGate = true
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.RuntimeClass(render.RuntimeClassValues{ReadinessGate: true}); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Installation(gated); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("render=gardener-chartrenderer", func(b *testing.B) {
		cr := chartrenderer.NewWithServerVersion(&version.Info{GitVersion: "v1.35.0", Major: "1", Minor: "35"})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cr.RenderEmbeddedFS(charts.Internal, charts.RuntimeClassChartPath, "gvisor", "kube-system", map[string]any{}); err != nil {
				b.Fatal(err)
			}
			if _, err := cr.RenderEmbeddedFS(charts.Internal, charts.InstallationChartPath, "gvisor-installation", "kube-system", values); err != nil {
				b.Fatal(err)
			}
		}
	})
}
