// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// installationImageName is the installation image's name in the image vector (imagevector/images.yaml).
const installationImageName = "runtime-gvisor-installation"

// mutatedOSCs returns the gVisor pool's reconcile OSC as the extension's OSC webhook mutates it
// (oscwebhook.Ensurer.MutateOSC, the webhook's own code path minus HTTP) on gardenlet's OSC (osctest), and the next
// OSC after gVisor left the pool (mutated with the first as old: the remove op, our files gone). installationRepo,
// if set, is the installation image's repository (with tag) through an image vector overwrite, as an operator
// points the extension at a registry. The one change to gardenlet's OSC: the sandbox image is the harness's
// imported pause image (gardenlet writes the node's real pause image, which this machine cannot pull).
func mutatedOSCs(t testing.TB, installationRepo, tag string) (gvisor, removed *extensionsv1alpha1.OperatingSystemConfig) {
	t.Helper()
	// The shortest re-proof interval the extension accepts, so that TestNodeAgentReprove sees the timer fire a few
	// times within a minute.
	e := ensurer(t, installationRepo, tag, oscwebhook.Options{ReproveInterval: render.MinReproveInterval})
	ctx := context.Background()
	gvisor = gardenletOSC()
	if err := e.MutateOSC(ctx, osctest.Cluster(osctest.Shoot(true, osctest.ProviderConfig)), gvisor, nil); err != nil {
		t.Fatalf("the OSC webhook's mutation of the gVisor pool's OSC: %v", err)
	}
	removed = gardenletOSC()
	if err := e.MutateOSC(ctx, osctest.Cluster(osctest.Shoot(false, "")), removed, gvisor); err != nil {
		t.Fatalf("the OSC webhook's mutation after gVisor left the pool: %v", err)
	}
	if p := pluginEntry(t, gvisor); opOf(p) != extensionsv1alpha1.AddPluginPathOperation {
		t.Fatalf("the gVisor pool's OSC has op %q at %v, want add", opOf(p), p.Path)
	}
	if p := pluginEntry(t, removed); opOf(p) != extensionsv1alpha1.RemovePluginPathOperation {
		t.Fatalf("the OSC after gVisor left the pool has op %q at %v, want remove", opOf(p), p.Path)
	}
	if installationRepo != "" {
		for _, f := range gvisor.Spec.Files {
			if f.Content.ImageRef != nil && f.Content.ImageRef.Image != installationRepo+":"+tag {
				t.Fatalf("the OSC's imageRef file %s names %s, want the overwritten installation image %s:%s", f.Path, f.Content.ImageRef.Image, installationRepo, tag)
			}
		}
	}
	return gvisor, removed
}

// sandboxMetricsOSC is the gVisor pool's OSC as the webhook mutates it on a landscape with sandbox metrics on
// (the extension's --sandbox-metrics): with the metric server's file and unit.
func sandboxMetricsOSC(t testing.TB, installationRepo, tag string) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	e := ensurer(t, installationRepo, tag, oscwebhook.Options{SandboxMetrics: true})
	osc := gardenletOSC()
	// The node is this machine: its address is in the shoot's node network, as a node's InternalIP is in a shoot's,
	// so the metric server unit answers the API server's node proxy from it.
	shoot := osctest.Shoot(true, osctest.ProviderConfig)
	shoot.Spec.Networking.Nodes = ptr.To(machineIP(t) + "/32")
	if err := e.MutateOSC(context.Background(), osctest.Cluster(shoot), osc, nil); err != nil {
		t.Fatalf("the OSC webhook's mutation of the gVisor pool's OSC with sandbox metrics on: %v", err)
	}
	return osc
}

// ensurer is the OSC webhook's Ensurer with opts; installationRepo, if set, is the installation image's repository
// (with tag) through an image vector overwrite, as an operator points the extension at a registry.
func ensurer(t testing.TB, installationRepo, tag string, opts oscwebhook.Options) *oscwebhook.Ensurer {
	t.Helper()
	overwrite := ""
	if installationRepo != "" {
		overwrite = filepath.Join(t.TempDir(), "images.yaml")
		iv := fmt.Sprintf("images:\n- name: %s\n  repository: %s\n  tag: %s\n", installationImageName, installationRepo, tag)
		if err := os.WriteFile(overwrite, []byte(iv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	images, err := imagevector.LoadWithOverwrite(version.Version, overwrite)
	if err != nil {
		t.Fatal(err)
	}
	return ensurerFor(t, images, opts)
}

// ensurerFor is the OSC webhook's Ensurer rendering the images of vector.
func ensurerFor(t testing.TB, vector imagevectorutils.ImageVector, opts oscwebhook.Options) *oscwebhook.Ensurer {
	t.Helper()
	renderer, err := render.New(vector)
	if err != nil {
		t.Fatal(err)
	}
	return oscwebhook.NewEnsurer(renderer, opts)
}

// gardenletOSC is osctest's reconcile OSC of the gVisor pool with the harness's sandbox image.
func gardenletOSC() *extensionsv1alpha1.OperatingSystemConfig {
	o := osctest.OSC(osctest.GVisorPool)
	o.Spec.CRIConfig.Containerd.SandboxImage = nodetest.PauseImage
	return o
}

// pluginEntry returns the OSC's criConfig.containerd.plugins entry of ours (oscwebhook.PluginPath).
func pluginEntry(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) extensionsv1alpha1.PluginConfig {
	t.Helper()
	if osc.Spec.CRIConfig == nil || osc.Spec.CRIConfig.Containerd == nil {
		t.Fatalf("the OSC has no criConfig.containerd")
	}
	for _, p := range osc.Spec.CRIConfig.Containerd.Plugins {
		if slices.Equal(p.Path, oscwebhook.PluginPath()) {
			return p
		}
	}
	t.Fatalf("the OSC has no criConfig.containerd.plugins entry at %v: %+v", oscwebhook.PluginPath(), osc.Spec.CRIConfig.Containerd.Plugins)
	return extensionsv1alpha1.PluginConfig{}
}

// opOf is the entry's op (node-agent's default: add).
func opOf(p extensionsv1alpha1.PluginConfig) extensionsv1alpha1.PluginPathOperation {
	return ptr.Deref(p.Op, extensionsv1alpha1.AddPluginPathOperation)
}

// proofUnit returns the OSC's sandbox-proof unit's ExecStart argv (pkg/webhook/operatingsystemconfig, ProofUnitName), or fails.
func proofUnit(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) []string {
	t.Helper()
	for _, u := range osc.Spec.Units {
		if u.Name != "gvisor-sandbox-proof.service" || u.Content == nil {
			continue
		}
		for _, line := range strings.Split(*u.Content, "\n") {
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart="); ok {
				return strings.Fields(cmd)
			}
		}
	}
	t.Fatalf("the gVisor pool's OSC has no gvisor-sandbox-proof.service with an ExecStart: %+v", osc.Spec.Units)
	return nil
}
