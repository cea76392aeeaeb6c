// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"context"
	"strings"
	"testing"
)

// GVisorPod starts a runsc pod with a busybox container and proves that it runs on the gVisor kernel: the
// container's /proc/version (its log) names gVisor, its dmesg is gVisor's boot log, and CRI reports the pod's
// runtime handler runsc with runtime type io.containerd.runsc.v1. It returns the pod and the container's ID.
func (n *Node) GVisorPod(t testing.TB, hostNetwork bool) (*Pod, string) {
	t.Helper()
	ctx := context.Background()
	pod, err := n.RunPod(ctx, PodSpec{Handler: "runsc", HostNetwork: hostNetwork})
	if err != nil {
		t.Fatalf("runsc pod on %s: %v", n.C, err)
	}
	id, err := n.StartContainer(ctx, pod, BusyboxImage, "sh", "-c", "cat /proc/version; exec sleep 3600")
	if err != nil {
		t.Fatalf("container in the runsc pod on %s: %v", n.C, err)
	}
	version, err := n.ContainerLog(ctx, id, "Linux version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "gvisor") {
		t.Errorf("the runsc pod's container does not run on gVisor: /proc/version = %q", version)
	}
	dmesg, err := n.ExecSync(ctx, id, "dmesg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dmesg, "Starting gVisor") {
		t.Errorf("the runsc pod's dmesg is not gVisor's boot log:\n%s", dmesg)
	}
	handler, runtimeType, err := n.SandboxHandler(ctx, pod)
	if err != nil {
		t.Fatal(err)
	}
	if handler != "runsc" || runtimeType != "io.containerd.runsc.v1" {
		t.Errorf("CRI reports the pod's runtime handler %q (runtime type %q), want runsc (io.containerd.runsc.v1)", handler, runtimeType)
	}
	first, _, _ := strings.Cut(dmesg, "\n")
	t.Logf("runsc pod %.12s on %s (handler %s, %s): %s; dmesg: %s", pod.ID, n.C, handler, runtimeType, strings.TrimSpace(version), first)
	return pod, id
}
