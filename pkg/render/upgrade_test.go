// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestUpgradeFromInstallerContainerOnRealAPIServer: an installation DaemonSet of the chart before the installer
// became an init container (the installer as the pod's only container, with --idle and the readiness probe, the
// token automounted with the gate) is updated in place by this chart's, on a real kube-apiserver: the same object,
// one new generation, selector and RollingUpdate (maxUnavailable 1) unchanged. So the DaemonSet controller rolls the
// pods node by node, as for any change of the pod template, and gardener-resource-manager never falls back to
// delete-on-invalid-update (which would restart the installation on every node at once).
func TestUpgradeFromInstallerContainerOnRealAPIServer(t *testing.T) {
	c, r := realAPIServer(t), newRenderer(t, "v0.0.0-dev", "")
	ctx := context.Background()
	for _, gate := range []bool{false, true} {
		v := poolValues
		v.WorkerPool, v.ReadinessGate = fmt.Sprintf("upgrade-gate-%v", gate), gate
		next := daemonSetOf(t, r, v).ds
		prev := previousChartDaemonSet(t, next)
		if err := c.Create(ctx, prev); err != nil {
			t.Fatalf("gate %v: the previous chart's DaemonSet: %v", gate, err)
		}
		next.ResourceVersion = prev.ResourceVersion
		if err := c.Update(ctx, next); err != nil {
			t.Fatalf("gate %v: the API server refuses this chart's DaemonSet as an update of the previous one: %v", gate, err)
		}
		got := &appsv1.DaemonSet{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(next), got); err != nil {
			t.Fatal(err)
		}
		if got.UID != prev.UID || got.Generation != 2 || got.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType ||
			got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.IntValue() != 1 {
			t.Errorf("gate %v: uid %s (was %s), generation %d, strategy %+v: want the same object at generation 2, rolling one node at a time",
				gate, got.UID, prev.UID, got.Generation, got.Spec.UpdateStrategy)
		}
		if diff := cmp.Diff(prev.Spec.Selector, got.Spec.Selector); diff != "" {
			t.Errorf("gate %v: selector changed (-previous +now):\n%s", gate, diff)
		}
		if len(got.Spec.Template.Spec.InitContainers) != 1 || installerContainer(got) != &got.Spec.Template.Spec.InitContainers[0] {
			t.Errorf("gate %v: the installer is not the init container after the update", gate)
		}
	}
}

// previousChartDaemonSet is next as the chart before the init container rendered it: the installer the only
// container, idling itself (--idle) with gvisor-idle's readiness probe, and with the gate the token automounted.
func previousChartDaemonSet(t *testing.T, next *appsv1.DaemonSet) *appsv1.DaemonSet {
	t.Helper()
	prev := next.DeepCopy()
	spec := &prev.Spec.Template.Spec
	installer := installerContainer(prev).DeepCopy()
	installer.Command = slices.Insert(installer.Command, slices.Index(installer.Command, "--restart=systemd")+1, "--idle")
	installer.ReadinessProbe = spec.Containers[0].ReadinessProbe
	if spec.ServiceAccountName != "" {
		spec.AutomountServiceAccountToken = ptr.To(true)
		installer.VolumeMounts = slices.DeleteFunc(installer.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "api-token" })
		spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == "api-token" })
	}
	spec.InitContainers, spec.Containers = nil, []corev1.Container{*installer}
	return prev
}
