// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"context"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
)

// TestSandboxMetricsOSC: with sandbox metrics (the landscape's default on) the pool's OSC gets the metric server
// binary from the installation image, its two units (the collector with the same --root and --metric-server as the
// DaemonSet's container, on its socket; the front on the node's port, asking it) and runsc.toml's metric-server
// flag, and nothing else changes; the pool's providerConfig turning
// it off, or the setting off, gives the OSC without any of it, and an OSC that had them loses them (they are ours).
func TestSandboxMetricsOSC(t *testing.T) {
	off := mutate(t, newEnsurer(t, osc.Options{}), true, osctest.OSC(osctest.GVisorPool), nil)
	on := mutate(t, newEnsurer(t, osc.Options{SandboxMetrics: true}), true, osctest.OSC(osctest.GVisorPool), nil)
	golden(t, "gvisor-pool-sandbox-metrics", on)

	bin := path.Join(extensionsv1alpha1.ContainerDRuntimeContainersBinFolder, osc.MetricServerBinary)
	i := slices.IndexFunc(on.Spec.Files, func(f extensionsv1alpha1.File) bool { return f.Path == bin })
	if i < 0 || on.Spec.Files[i].Content.ImageRef == nil || on.Spec.Files[i].Content.ImageRef.FilePathInImage != "/gvisor-metric-server" {
		t.Fatalf("sandbox metrics on: no imageRef file %s from /gvisor-metric-server: %+v", bin, on.Spec.Files)
	}
	for name, exec := range map[string]string{
		osc.MetricCollectorUnitName: "ExecStart=" + bin + " --root=" + render.RunscRoot + " --metric-server=" + runscconfig.MetricServerAddress +
			" --listen=" + render.MetricCollectorSocket + " --socket-mode=0666",
		osc.MetricServerUnitName: "ExecStart=" + bin + " --collector-socket=" + render.MetricCollectorSocket + " --listen=:" + strconv.Itoa(render.MetricServerPort),
	} {
		j := slices.IndexFunc(on.Spec.Units, func(u extensionsv1alpha1.Unit) bool { return u.Name == name })
		if j < 0 {
			t.Fatalf("sandbox metrics on: no unit %s", name)
		}
		u := on.Spec.Units[j]
		if u.Content == nil || !strings.Contains(*u.Content, exec+"\n") || !slices.Equal(u.FilePaths, []string{bin}) {
			t.Errorf("unit %s: want %q and FilePaths [%s]:\n%v %v", u.Name, exec, bin, u.FilePaths, u.Content)
		}
	}
	if toml := runscToml(t, on); !strings.Contains(toml, `metric-server = "`+runscconfig.MetricServerAddress+`"`) {
		t.Errorf("sandbox metrics on: runsc.toml lacks the metric-server flag:\n%s", toml)
	}
	if toml := runscToml(t, off); strings.Contains(toml, "metric-server") {
		t.Errorf("sandbox metrics off: runsc.toml has the metric-server flag:\n%s", toml)
	}

	// Everything else is the OSC without sandbox metrics.
	stripped := on.DeepCopy()
	stripped.Spec.Files = slices.DeleteFunc(stripped.Spec.Files, func(f extensionsv1alpha1.File) bool { return f.Path == bin || f.Path == stagedFlags })
	stripped.Spec.Units = slices.DeleteFunc(stripped.Spec.Units, func(u extensionsv1alpha1.Unit) bool {
		return u.Name == osc.MetricServerUnitName || u.Name == osc.MetricCollectorUnitName
	})
	offStripped := off.DeepCopy()
	offStripped.Spec.Files = slices.DeleteFunc(offStripped.Spec.Files, func(f extensionsv1alpha1.File) bool { return f.Path == stagedFlags })
	if d := cmp.Diff(offStripped, stripped); d != "" {
		t.Errorf("sandbox metrics changed more than their file, unit and runsc.toml:\n%s", d)
	}

	// The pool's providerConfig overrides the landscape's default; the next mutation takes what it added away.
	optOut := on.DeepCopy()
	shoot := osctest.Shoot(true, `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","sandboxMetrics":{"enabled":false}}`)
	if err := newEnsurer(t, osc.Options{SandboxMetrics: true}).MutateOSC(context.Background(), osctest.Cluster(shoot), optOut, on); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(optOut.Spec.Files, func(f extensionsv1alpha1.File) bool { return f.Path == bin }) ||
		hasUnit(optOut.Spec.Units, osc.MetricServerUnitName) || hasUnit(optOut.Spec.Units, osc.MetricCollectorUnitName) {
		t.Errorf("the pool opted out, but its OSC keeps the metric server: %+v", optOut.Spec.Units)
	}
}

// runscToml is the OSC's inline runsc.toml.
// stagedFlags is where node-agent stages the pool's runsc flags at the default binaryPath.
const stagedFlags = extensionsv1alpha1.ContainerDRuntimeContainersBinFolder + "/" + nodecontract.StagedFlags

func runscToml(t *testing.T, o *extensionsv1alpha1.OperatingSystemConfig) string {
	t.Helper()
	for _, f := range o.Spec.Files {
		if f.Path == stagedFlags && f.Content.Inline != nil {
			return f.Content.Inline.Data
		}
	}
	t.Fatalf("no inline %s", stagedFlags)
	return ""
}
