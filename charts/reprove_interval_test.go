// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestInstallationChartReproveInterval: the installation chart's schema accepts a reproveInterval exactly when the
// controller does (render.ValidateReproveInterval: whole seconds, at least 10s), so that a chart rendered without
// the controller (helm, gvisor-render's charts in other tools) cannot make every node prove itself every second
// or never wait between proofs.
func TestInstallationChartReproveInterval(t *testing.T) {
	installation := []string{"template", "x", "./internal/gvisor-installation",
		"--set", "workerPool=a,binaryPath=/var/bin/containerruntimes,image=example.com/i:v1"}
	for value, d := range map[string]time.Duration{
		"10s": 10 * time.Second, "90s": 90 * time.Second, "1m": time.Minute, "1m5s": 65 * time.Second, "5m": 5 * time.Minute,
		"1h": time.Hour, "1h30m": 90 * time.Minute, "0h0m10s": 10 * time.Second, "010s": 10 * time.Second,
		"0s": 0, "9s": 9 * time.Second, "09s": 9 * time.Second, "0m9s": 9 * time.Second, "0h0m": 0, "1.5m": 90 * time.Second,
		"500ms": 500 * time.Millisecond, "": 0, "10": 0, "m": 0,
	} {
		parsed, perr := time.ParseDuration(value)
		controllerAccepts := perr == nil && parsed == d && render.ValidateReproveInterval(d) == nil && !strings.ContainsAny(value, ".")
		args := append(installation, "--set-string", "reproveInterval="+value)
		out, stderr, err := helm(t, args...)
		switch {
		case controllerAccepts && err != nil:
			t.Errorf("reproveInterval %q (the controller accepts %s): helm refused it: %s", value, d, stderr)
		case controllerAccepts && !strings.Contains(out, "- --interval="+value):
			t.Errorf("reproveInterval %q: the idle container does not get it as its --interval", value)
		case !controllerAccepts && err == nil:
			t.Errorf("reproveInterval %q: helm accepted what the controller refuses", value)
		case !controllerAccepts && !strings.Contains(stderr, "reproveInterval"):
			t.Errorf("reproveInterval %q: helm's error does not name the value: %s", value, stderr)
		}
	}
}

// TestExtensionChartReproveInterval: the extension chart's controller.reproveInterval (the controller's
// --reprove-interval) is refused by helm where the controller would refuse it at start, instead of a Deployment
// whose pods crash-loop.
func TestExtensionChartReproveInterval(t *testing.T) {
	for value, accepted := range map[string]bool{"10s": true, "5m": true, "1h30m": true, "0s": false, "9s": false, "1.5m": false, "500ms": false, "10": false} {
		_, stderr, err := helm(t, "template", "x", "./gardener-extension-runtime-gvisor", "--set-string", "controller.reproveInterval="+value)
		switch {
		case accepted && err != nil:
			t.Errorf("controller.reproveInterval %q: helm refused it: %s", value, stderr)
		case !accepted && (err == nil || !strings.Contains(stderr, "reproveInterval")):
			t.Errorf("controller.reproveInterval %q: want helm to refuse it naming the value, got %v: %s", value, err, stderr)
		}
	}
}
