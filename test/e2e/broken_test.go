// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// kvmConfig is a providerConfig with which runsc cannot start a sandbox on this node: platform kvm needs /dev/kvm.
const kvmConfig = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"platform":"kvm"}}`

// TestBrokenNodeOnRealNode breaks a working gVisor node's configuration the way shoot owners do (platform kvm on a
// node without /dev/kvm), with the readiness gate on, on the newest containerd release: the installation pod,
// rolled by the kubelet with the new runsc configuration, fails its sandbox proof and is not Ready; EveryNodeReady
// turns False naming the node, that the sandbox did not start and that the node runs on its previous runsc flags.
// The node keeps working meanwhile: the installer put the last proven runsc.toml back and proved it again, so the
// node keeps its ready label and a new gVisor pod runs there. Setting the configuration back heals the node.
func TestBrokenNodeOnRealNode(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	n, shoot := onRealNode(ctx, t, c, realcomponents.Helm(t), thisChart, ourImages(t), map[string]any{"readinessGate": true})
	key := client.ObjectKeyFromObject(shoot.ContainerRuntime)
	_, err := e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	waitReadyLabel(ctx, t, n, true)

	setProviderConfig(ctx, t, n, key, []byte(kvmConfig))
	cond := waitCondition(ctx, t, n, key, gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	t.Logf("EveryNodeReady on the broken node: %s", cond.Message)
	for _, want := range []string{nodeName, "gVisor sandbox did not start", "previous runsc flags"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("EveryNodeReady's message should name the node %s, that the sandbox did not start and what the node runs (%q): %s", nodeName, want, cond.Message)
		}
	}
	waitReadyLabel(ctx, t, n, true)
	meanwhile := e2e.ShootOwnerPod("default", "gvisor-meanwhile", new("gvisor"))
	if _, err := e2e.RunPod(ctx, n, meanwhile, e2e.GVisorKernelLine, 2*time.Minute); err != nil {
		t.Errorf("a gVisor pod on the node that runs its previous runsc flags: %v", err)
	}

	setProviderConfig(ctx, t, n, key, shoot.ContainerRuntime.Spec.ProviderConfig.Raw)
	_, err = e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	waitReadyLabel(ctx, t, n, true)
}

// setProviderConfig changes the ContainerRuntime's providerConfig and annotates it for a reconcile, as gardenlet
// does when the shoot owner edits the pool.
func setProviderConfig(ctx context.Context, t *testing.T, n *kubenode.Node, key client.ObjectKey, raw []byte) {
	t.Helper()
	cr := &extensionsv1alpha1.ContainerRuntime{}
	testutil.Must(t, n.Client().Get(ctx, key, cr))
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Spec.ProviderConfig = &runtime.RawExtension{Raw: raw}
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	cr.Annotations[v1beta1constants.GardenerOperation] = v1beta1constants.GardenerOperationReconcile
	testutil.Must(t, n.Client().Patch(ctx, cr, patch))
}

func waitCondition(ctx context.Context, t *testing.T, n *kubenode.Node, key client.ObjectKey, typ gardencorev1beta1.ConditionType, status gardencorev1beta1.ConditionStatus) gardencorev1beta1.Condition {
	t.Helper()
	var got gardencorev1beta1.Condition
	err := e2e.Poll(ctx, 4*time.Minute, time.Second, fmt.Sprintf("%s %s", typ, status), func() error {
		cr := &extensionsv1alpha1.ContainerRuntime{}
		if err := n.Client().Get(ctx, key, cr); err != nil {
			return err
		}
		c := v1beta1helper.GetCondition(cr.Status.Conditions, typ)
		if c == nil || c.Status != status {
			return fmt.Errorf("%+v", c)
		}
		got = *c
		return nil
	})
	testutil.Must(t, err)
	return got
}

// waitReadyLabel waits until the node has (or lacks) the readiness gate's label.
func waitReadyLabel(ctx context.Context, t *testing.T, n *kubenode.Node, want bool) {
	t.Helper()
	err := e2e.Poll(ctx, 3*time.Minute, time.Second, fmt.Sprintf("node label %s present: %v", nodelabel.Key, want), func() error {
		var node corev1.Node
		if err := n.Client().Get(ctx, client.ObjectKey{Name: n.Name()}, &node); err != nil {
			return err
		}
		if _, has := node.Labels[nodelabel.Key]; has != want {
			return fmt.Errorf("labels %v", node.Labels)
		}
		return nil
	})
	testutil.Must(t, err)
}
