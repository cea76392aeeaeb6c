// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
)

// TestDeploymentArgsMatchControllerFlags parses the args the chart renders with the controller's own flag
// set: a flag renamed on either side, or a value the controller rejects, fails here instead of in a
// crash-looping pod on a seed.
func TestDeploymentArgsMatchControllerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"defaults", nil},
		{"gardener values", []string{"-f", "testdata/gardener-injected-values.yaml"}},
		{"everything set", []string{"--set", "leaderElection.enabled=false", "--set", "controller.disableControllers={heartbeat}",
			"--set", "controller.ignoreOperationAnnotation=true", "--set", "controller.maxConcurrentReconciles=2",
			"--set", "controller.deleteWaitTimeout=90s", "--set", "controller.uninstallTimeout=10m", "--set", "controller.readinessGate=true",
			"--set", "controller.proveSandbox=false", "--set", "logLevel=debug", "--set", "logFormat=text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := decode(t, template(t, tc.args...)).deployment(t)
			o, fs := app.NewFlagSet()
			if err := fs.Parse(c.Args); err != nil {
				t.Fatalf("controller rejects the chart's args %v: %v", c.Args, err)
			}
			if fs.NArg() != 0 {
				t.Fatalf("positional arguments %v", fs.Args())
			}
			if err := o.Validate(); err != nil {
				t.Fatalf("controller's validation rejects the chart's args %v: %v", c.Args, err)
			}
			if err := o.Switches.Complete(); err != nil {
				t.Fatalf("controller switches reject the chart's args %v: %v", c.Args, err)
			}
			if o.Manager.LeaderElectionNamespace != releaseNS || o.Heartbeat.Namespace != releaseNS {
				t.Errorf("namespaces: leader election %q, heartbeat %q, want %q", o.Manager.LeaderElectionNamespace, o.Heartbeat.Namespace, releaseNS)
			}
		})
	}
	// The values reach the controller's options with their meaning intact.
	_, c := decode(t, template(t, "--set", "controller.deleteWaitTimeout=90s", "--set", "controller.maxConcurrentReconciles=2",
		"--set", "controller.uninstallTimeout=10m", "--set", "controller.readinessGate=true")).deployment(t)
	o, fs := app.NewFlagSet()
	if err := fs.Parse(c.Args); err != nil {
		t.Fatal(err)
	}
	if o.DeleteWaitTimeout != 90*time.Second || o.Controller.MaxConcurrentReconciles != 2 || o.Manager.LeaderElectionID != app.DefaultLeaderElectionID {
		t.Errorf("options: deleteWaitTimeout %s, maxConcurrentReconciles %d, leaderElectionID %q",
			o.DeleteWaitTimeout, o.Controller.MaxConcurrentReconciles, o.Manager.LeaderElectionID)
	}
	if o.UninstallTimeout != 10*time.Minute || !o.ReadinessGate {
		t.Errorf("options: uninstallTimeout %s, readinessGate %v; want 10m, true", o.UninstallTimeout, o.ReadinessGate)
	}
	// The delivery mode and the webhook's ports reach the controller (the webhook is registered in both modes).
	for value, want := range map[string]delivery.Mode{"": delivery.DaemonSet, "daemonset": delivery.DaemonSet, "operatingsystemconfig": delivery.OperatingSystemConfig} {
		args := []string{"--set", "webhook.serverPort=9443", "--set", "webhook.servicePort=8443"}
		if value != "" {
			args = append(args, "--set", "deliveryMode="+value, "--set", "replicaCount=2")
		}
		_, c := decode(t, template(t, args...)).deployment(t)
		o, fs := app.NewFlagSet()
		if err := fs.Parse(c.Args); err != nil {
			t.Fatal(err)
		}
		if o.DeliveryMode != want || o.Manager.WebhookServerPort != 9443 || o.WebhookServer.ServicePort != 8443 ||
			o.WebhookServer.Mode != "service" || o.WebhookServer.Namespace != releaseNS {
			t.Errorf("deliveryMode=%q: options DeliveryMode %q (want %q), webhook server port %d, service port %d, mode %q, namespace %q",
				value, o.DeliveryMode, want, o.Manager.WebhookServerPort, o.WebhookServer.ServicePort, o.WebhookServer.Mode, o.WebhookServer.Namespace)
		}
	}
	// The sandbox proof is on by default and the value switches it off.
	for value, want := range map[string]bool{"": true, "false": false, "true": true} {
		var args []string
		if value != "" {
			args = []string{"--set", "controller.proveSandbox=" + value}
		}
		_, c := decode(t, template(t, args...)).deployment(t)
		o, fs := app.NewFlagSet()
		if err := fs.Parse(c.Args); err != nil {
			t.Fatal(err)
		}
		if o.ProveSandbox != want {
			t.Errorf("controller.proveSandbox=%q: option ProveSandbox %v, want %v", value, o.ProveSandbox, want)
		}
	}
}
