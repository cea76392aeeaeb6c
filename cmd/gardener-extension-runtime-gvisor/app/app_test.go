// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"--version"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != version.Version {
		t.Errorf("--version printed %q, want %q", got, version.Version)
	}
}

// TestInvalidFlags: every refusal names the flag and the fix, before anything connects to a cluster.
func TestInvalidFlags(t *testing.T) {
	t.Setenv("LEADER_ELECTION_NAMESPACE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--leader-election=true", "--heartbeat-namespace=x"}, "--leader-election-namespace is empty"},
		{[]string{"--leader-election=false"}, "--heartbeat-namespace is empty"},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "--max-concurrent-reconciles=0"}, "--max-concurrent-reconciles must be at least 1"},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "--delete-wait-timeout=0s"}, "--delete-wait-timeout must be positive"},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "--heartbeat-renew-interval-seconds=0"}, "--heartbeat-renew-interval-seconds must be greater than 0"},
		{[]string{"--webhook-config-owner-namespace=x"}, "unknown flag: --webhook-config-owner-namespace"},
		{[]string{"--disable-webhooks=*"}, "unknown flag: --disable-webhooks"},
		{[]string{"--delivery-mode=DaemonSet"}, "use one of daemonset, operatingsystemconfig"},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "--webhook-config-mode=url"}, "--webhook-config-mode=url needs --webhook-config-url"},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "--delivery-mode=operatingsystemconfig", "--webhook-config-mode=nope"},
			`--webhook-config-mode="nope": use service`},
		{[]string{"--leader-election=false", "--heartbeat-namespace=x", "positional"}, "takes only flags"},
		{[]string{"--leader-election=false", "--disable-controllers=heartbeat", "--log-level=loud"}, "invalid --log-level"},
		{[]string{"--leader-election=false", "--disable-controllers=nope", "--heartbeat-namespace=x"}, `cannot disable unknown controller "nope"`},
	} {
		err := Run(context.Background(), tc.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to contain %q", tc.args, err, tc.want)
		}
	}
}

// TestHeartbeatDisabledNeedsNoNamespace: --disable-controllers=heartbeat lifts the namespace requirement.
func TestHeartbeatDisabledNeedsNoNamespace(t *testing.T) {
	t.Setenv("LEADER_ELECTION_NAMESPACE", "")
	o, fs := NewFlagSet()
	if err := fs.Parse([]string{"--leader-election=false", "--disable-controllers=heartbeat"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
