// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package osc

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestDaemonSetModeScope: in the DaemonSet mode, kube-apiserver sends the webhook only the OSCs that carry an entry
// of ours (label oscwebhook.LabelEntry). An OSC an earlier OperatingSystemConfig mode delivered gVisor with gets the
// remove entry; with no replica answering, its writes are refused (failurePolicy Fail: the removal must not be
// lost), while every other pool's OSC on the seed is written as gardenlet sends it.
func TestDaemonSetModeScope(t *testing.T) {
	e := start(t, delivery.DaemonSet)
	ctx := context.Background()
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	testutil.Must(t, e.c.Get(ctx, client.ObjectKey{Name: mwcName}, mwc))
	if d := cmp.Diff(oscwebhook.ObjectSelector(delivery.DaemonSet), mwc.Webhooks[0].ObjectSelector); d != "" {
		t.Fatalf("objectSelector in the DaemonSet mode (-want +got):\n%s", d)
	}

	// What the OperatingSystemConfig mode stored for the gVisor pool, written again after the switch: the webhook
	// turns the add entry into the remove entry and keeps the label.
	renderer, err := render.Load(version.Version, "")
	testutil.Must(t, err)
	delivered := osctest.OSC(osctest.GVisorPool)
	testutil.Must(t, oscwebhook.NewEnsurer(renderer, oscwebhook.Options{}).MutateOSC(ctx, osctest.Cluster(osctest.Shoot(true, osctest.ProviderConfig)), delivered, nil))
	removed, err := e.writeOSC(ctx, delivered)
	testutil.Must(t, err)
	if !oscwebhook.RemovalOnly(removed) || removed.Labels[oscwebhook.LabelEntry] != "true" {
		t.Fatalf("the delivered OSC after the switch: want only the remove entry and label %s, got labels %v, criConfig %+v",
			oscwebhook.LabelEntry, removed.Labels, removed.Spec.CRIConfig)
	}
	_, err = e.writeOSC(ctx, osctest.OSC(osctest.OtherPool))
	testutil.Must(t, err)

	// No replica answers any more.
	e.stop()
	testutil.Eventually(t, "the webhook server to stop", func() error {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(e.port)), time.Second)
		if err == nil {
			_ = conn.Close()
			return fmt.Errorf("127.0.0.1:%d still accepts connections", e.port)
		}
		return nil
	})
	next := osctest.OSC(osctest.OtherPool)
	next.Spec.Units[0].Content = ptr.To(*next.Spec.Units[0].Content + "\n# gardenlet's next reconcile\n")
	if _, err := e.writeOSC(ctx, next); err != nil {
		t.Errorf("an OSC without an entry of ours was refused while the webhook is down (blast radius): %v", err)
	}
	if _, err := e.writeOSC(ctx, removed); err == nil || !strings.Contains(err.Error(), oscwebhook.Path) {
		t.Errorf("the OSC carrying the remove entry was written without the webhook: %v (want a failed call to %s)", err, oscwebhook.Path)
	}
}
