// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// chartDir is the extension chart, relative to this file.
func chartDir(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate this test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "charts", "gardener-extension-runtime-gvisor")
}

// TestChartArgsMatchFlags renders the extension chart's Deployment with the helm CLI and parses its container
// args with the controller's real flag set: a flag the chart passes but the binary does not know would crash-loop
// the extension on every seed.
func TestChartArgsMatchFlags(t *testing.T) {
	helm := realcomponents.Helm(t)
	for name, setArgs := range map[string][]string{
		"defaults": nil,
		"everything set": {
			"--set", "gardener.version=v1.149.3",
			"--set", "controller.disableControllers={heartbeat}",
			"--set", "controller.ignoreOperationAnnotation=true",
			"--set", "controller.maxConcurrentReconciles=10",
			"--set", "leaderElection.enabled=false",
			"--set", "logLevel=debug", "--set", "logFormat=text",
			"--set", "imageVectorOverwrite=images: []",
		},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"template", "gvisor", chartDir(t), "--namespace", "extension-runtime-gvisor-x1"}, setArgs...)
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(helm, args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			dep := deploymentOf(t, stdout.Bytes())
			if len(dep.Spec.Template.Spec.Containers) != 1 {
				t.Fatalf("want one container, got %d", len(dep.Spec.Template.Spec.Containers))
			}
			c := dep.Spec.Template.Spec.Containers[0]

			o, fs := NewFlagSet()
			if err := fs.Parse(c.Args); err != nil {
				t.Fatalf("the controller rejects the chart's args %q: %v", c.Args, err)
			}
			if fs.NArg() != 0 {
				t.Errorf("positional args %q", fs.Args())
			}
			if o.Manager.LeaderElectionNamespace != "extension-runtime-gvisor-x1" || o.Heartbeat.Namespace != "extension-runtime-gvisor-x1" {
				t.Errorf("namespaces: leader election %q, heartbeat %q", o.Manager.LeaderElectionNamespace, o.Heartbeat.Namespace)
			}
			// The args must be complete enough to start: Validate is what runs before the manager.
			if err := o.Validate(); err != nil {
				t.Errorf("the chart's args do not validate: %v", err)
			}
			if name == "everything set" {
				if o.GardenerVersion != "v1.149.3" || !slices.Equal(o.Switches.Disabled, []string{"heartbeat"}) ||
					!o.Reconciler.IgnoreOperationAnnotation || o.Controller.MaxConcurrentReconciles != 10 || o.Manager.LeaderElection {
					t.Errorf("values did not reach the flags: %+v", c.Args)
				}
			}
			for _, env := range c.Env {
				if env.Name == "IMAGEVECTOR_OVERWRITE" && env.Value != "/imagevector/images_overwrite.yaml" {
					t.Errorf("IMAGEVECTOR_OVERWRITE=%q", env.Value)
				}
			}
			probes := map[string]string{"liveness": c.LivenessProbe.HTTPGet.Path, "readiness": c.ReadinessProbe.HTTPGet.Path}
			if probes["liveness"] != "/healthz" || probes["readiness"] != "/readyz" {
				t.Errorf("probes %v, the controller serves /healthz and /readyz", probes)
			}
		})
	}
}

func deploymentOf(t *testing.T, manifests []byte) *appsv1.Deployment {
	t.Helper()
	for _, doc := range strings.Split(string(manifests), "\n---") {
		var probe struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &probe); err != nil || probe.Kind != "Deployment" {
			continue
		}
		dep := &appsv1.Deployment{}
		if err := yaml.UnmarshalStrict([]byte(doc), dep); err != nil {
			t.Fatalf("decoding the Deployment: %v", err)
		}
		return dep
	}
	t.Fatal("no Deployment in the rendered chart")
	return nil
}
