// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/healthcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// TestHealthInstallerReport: the installers' reports (package report: their init container's termination message,
// in the pod's status) reach the ContainerRuntime. A node whose installer found a foreign shim-named file in the
// bin dir is named, with the file, in the condition BinDirClean (False), which gardenlet does not merge into the
// Shoot: EveryNodeReady stays True, it is about readiness. Once the file is gone (the next report says none),
// BinDirClean is True again.
func TestHealthInstallerReport(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "healthreport", "1.33.4")
	nodes := []string{"healthreport-a-0", "healthreport-a-1"}
	sh.healthCheckedPool("a", nodes...)

	const shim = "/var/bin/containerruntimes/containerd-shim-runc-v2"
	sh.setInstallerReport("a", nodes[0], nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: strings.Repeat("0a", 64), Containerd: "containerd 2.4.2"})
	sh.setInstallerReport("a", nodes[1], nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: strings.Repeat("0a", 64), Containerd: "containerd 1.7.35", Foreign: []string{shim}})
	sh.checkGuideReportOneLiner("a", map[string]string{
		nodes[0]: "installed gVisor v0.0.0-20260905035102-160fafc42237 (runsc sha512:" + strings.Repeat("0a", 6) + ") on containerd 2.4.2; foreign shims: none",
		nodes[1]: "installed gVisor v0.0.0-20260905035102-160fafc42237 (runsc sha512:" + strings.Repeat("0a", 6) + ") on containerd 1.7.35; foreign shims: " + shim,
	})
	c := sh.waitHealthCondition("a", healthcheck.ConditionBinDirClean, gardencorev1beta1.ConditionFalse)
	if want := nodes[1] + " (" + shim + ")"; !strings.Contains(c.Message, want) || strings.Contains(c.Message, nodes[0]) {
		t.Errorf("BinDirClean message does not name only %q:\n%s", want, c.Message)
	}
	t.Logf("BinDirClean: %s", c.Message)
	sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)

	sh.setInstallerReport("a", nodes[1], nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: strings.Repeat("0a", 64), Containerd: "containerd 1.7.35"})
	sh.waitHealthCondition("a", healthcheck.ConditionBinDirClean, gardencorev1beta1.ConditionTrue)
	sh.keepInstallPodsReady("a") // the uninstall pods too: the pool's removal completes
	sh.deleteRuntime("a")
	sh.waitNoShootObjects()
}

// setInstallerReport plays the kubelet for pool's install pod on node after a successful installer run: the
// installer init container exited 0 with its report as termination message (charts/internal/gvisor-installation),
// the idle container runs, the pod is Ready.
func (sh *testShoot) setInstallerReport(pool, node string, r nodecontract.Report) {
	sh.t.Helper()
	p, ok := sh.pods(pool, false)[node]
	if !ok {
		sh.t.Fatalf("no install pod on node %s", node)
	}
	now := metav1.Now()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
	image := p.Spec.InitContainers[0].Image // the installer
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "installer", Image: image, Ready: true,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", Message: r.String() + "\n", StartedAt: now, FinishedAt: now}}}}
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
	}
	must(sh.t, sh.c.Status().Update(context.Background(), &p))
}
