// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// installed is the installer init container as the kubelet reports it after a successful run: exited 0, its
// termination message the report.
func installed(foreign ...string) corev1.ContainerStatus {
	line := nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: strings.Repeat("ab", 64), Containerd: "containerd 2.4.2", Foreign: foreign}.String()
	return corev1.ContainerStatus{Name: "installer", Ready: true, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Reason: "Completed", Message: line + "\n"}}}
}

func withInit(p corev1.Pod, init ...corev1.ContainerStatus) corev1.Pod {
	p.Status.InitContainerStatuses = init
	return p
}

// TestInstallerReport: the report is read from the installer init container's termination message, or from the
// last run of an installer that was the pod's main container; a failure's message is no report.
func TestInstallerReport(t *testing.T) {
	ok := withInit(pod("n0", true), installed())
	if r, found := InstallerReport(&ok); !found || r.GVisor != "v0.0.0-20260905035102-160fafc42237" || r.Containerd != "containerd 2.4.2" || r.RunscSum != "abababababab" {
		t.Errorf("init container: %+v %v", r, found)
	}
	main := pod("n0", true, corev1.ContainerStatus{Name: "installer", LastTerminationState: installed().State})
	if _, found := InstallerReport(&main); !found {
		t.Error("main container's last run: no report")
	}
	failed := pod("n0", false, crashLooping("containerd 1.6.20 is not supported (minimum containerd 1.7.0)"))
	if _, found := InstallerReport(&failed); found {
		t.Error("a failure's message read as a report")
	}
	other := withInit(pod("n0", true), corev1.ContainerStatus{Name: "something-else", State: installed().State})
	if _, found := InstallerReport(&other); found {
		t.Error("a report of another container")
	}
}

// TestBinDirResult: nodes whose installer reported foreign shims are named with the files (BinDirClean False,
// which gardenlet does not merge into the Shoot); none reported gives True.
func TestBinDirResult(t *testing.T) {
	shim := "/var/bin/containerruntimes/containerd-shim-runc-v2"
	pods := []corev1.Pod{withInit(pod("n0", true), installed()), withInit(pod("n1", true), installed(shim)), pod("n2", false)}
	res := binDirResult("a", pods)
	if res.Status != gardencorev1beta1.ConditionFalse || !strings.Contains(res.Detail, `of 1 of 2 reporting nodes of worker pool "a"`) ||
		!strings.HasSuffix(res.Detail, "n1 ("+shim+")") || strings.Contains(res.Detail, "n0") {
		t.Errorf("%s: %s", res.Status, res.Detail)
	}
	if res := binDirResult("a", pods[:1]); res.Status != gardencorev1beta1.ConditionTrue {
		t.Errorf("clean pool: %s %s", res.Status, res.Detail)
	}
}

// TestSucceededInitIsNoReason: an installer init container that exited 0 does not make the pod look failed while
// its idle container is not Ready yet.
func TestSucceededInitIsNoReason(t *testing.T) {
	starting := corev1.ContainerStatus{Name: "idle", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	done := installed()
	done.Ready = false
	p := withInit(pod("n0", false, starting), done)
	if reason, failed := podReason(&p); failed || reason != "installing" {
		t.Errorf("podReason = %q, %v; want installing, not failed", reason, failed)
	}
}
