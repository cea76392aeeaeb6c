// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package realcomponents finds the real binaries (helm, kube-apiserver, containerd, runsc) that `make test`
// installs into the tool cache and announces through environment variables (see hack/test.sh).
//
// A plain `go test` without them skips the tests that need them, saying which make target installs them;
// under `make test` REQUIRE_REAL_COMPONENTS=1 is set and a missing component fails the test instead,
// so CI can never go green by skipping.
package realcomponents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Env returns the value of the environment variable env that names a real component,
// or skips (fails under REQUIRE_REAL_COMPONENTS=1) the test when it is unset.
func Env(t testing.TB, env, makeTarget string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	msg := env + " is not set: run `make " + makeTarget + "` or `make test`, which install the real component and set it"
	if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Helm returns the path of the helm CLI (HELM_BIN). A HELM_BIN that names no executable file counts as missing
// (skip, or fail under REQUIRE_REAL_COMPONENTS=1): a stale path must not turn into a test that never ran helm.
func Helm(t testing.TB) string {
	return executable(t, Env(t, "HELM_BIN", "tool-helm"), "HELM_BIN", "tool-helm")
}

// executable returns path if it is an executable regular file, else skips or fails like Env.
func executable(t testing.TB, path, env, makeTarget string) string {
	t.Helper()
	st, err := os.Stat(path)
	if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return path
	}
	msg := fmt.Sprintf("%s=%s is not an executable file (%v): run `make %s` or `make test`, which install it and set %s", env, path, err, makeTarget, env)
	if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// KubebuilderAssets returns the folder with etcd, kube-apiserver and kube-controller-manager (KUBEBUILDER_ASSETS).
func KubebuilderAssets(t testing.TB) string {
	return Env(t, "KUBEBUILDER_ASSETS", "tool-control-plane")
}

// GVisorDir returns the folder with static runsc and containerd-shim-runsc-v1 (GVISOR_TEST_GVISOR_DIR).
func GVisorDir(t testing.TB) string { return Env(t, "GVISOR_TEST_GVISOR_DIR", "tool-gvisor") }

// GVisorRebuildDir returns the directory of the same gVisor built a second way, every file different
// (GVISOR_TEST_GVISOR_REBUILD_DIR, `hack/tools/gvisor.sh rebuild`): the second release of upgrade tests.
func GVisorRebuildDir(t testing.TB) string {
	return Env(t, "GVISOR_TEST_GVISOR_REBUILD_DIR", "tool-gvisor")
}

// Node returns what the real-sandbox test nodes need from Debian, "busybox=PATH cni=DIR" (GVISOR_TEST_NODE,
// printed by hack/tools/node.sh; test/node parses it).
func Node(t testing.TB) string { return Env(t, "GVISOR_TEST_NODE", "tool-node") }

// Prometheus returns a real Prometheus binary and prometheus-config, prometheus-operator's config generator
// (GVISOR_TEST_PROMETHEUS, "<prometheus> <prometheus-config>", hack/tools/prometheus.sh).
func Prometheus(t testing.TB) (prometheus, config string) {
	t.Helper()
	v := Env(t, "GVISOR_TEST_PROMETHEUS", "tool-prometheus")
	f := strings.Fields(v)
	if len(f) != 2 {
		t.Fatalf("GVISOR_TEST_PROMETHEUS=%q: want \"<prometheus> <prometheus-config>\" (hack/tools/prometheus.sh)", v)
	}
	return executable(t, f[0], "GVISOR_TEST_PROMETHEUS", "tool-prometheus"), executable(t, f[1], "GVISOR_TEST_PROMETHEUS", "tool-prometheus")
}

// KubeStateMetrics returns the kube-state-metrics binary at the release Gardener runs for every shoot
// (GVISOR_TEST_KUBE_STATE_METRICS, hack/tools/kube-state-metrics.sh).
func KubeStateMetrics(t testing.TB) string {
	t.Helper()
	const env, target = "GVISOR_TEST_KUBE_STATE_METRICS", "tool-kube-state-metrics"
	return executable(t, Env(t, env, target), env, target)
}

// VMNode returns the folder of the VM node's disk (GVISOR_TEST_VM_NODE, hack/tools/vm-node.sh): vmlinuz,
// initrd.img, disk.img and its ssh key.
func VMNode(t testing.TB) string {
	t.Helper()
	dir := Env(t, "GVISOR_TEST_VM_NODE", "tool-vm-node")
	executable(t, "/usr/bin/qemu-system-x86_64", "GVISOR_TEST_VM_NODE", "tool-vm-node")
	return dir
}

// Crictl returns the path of crictl (GVISOR_TEST_CRICTL, hack/tools/crictl.sh).
func Crictl(t testing.TB) string {
	t.Helper()
	return executable(t, Env(t, "GVISOR_TEST_CRICTL", "tool-crictl"), "GVISOR_TEST_CRICTL", "tool-crictl")
}

// NodeAgent returns the path of Gardener's gardener-node-agent at the release go.mod pins (GVISOR_TEST_NODE_AGENT,
// hack/tools/node-agent.sh).
func NodeAgent(t testing.TB) string {
	t.Helper()
	return executable(t, Env(t, "GVISOR_TEST_NODE_AGENT", "tool-node-agent"), "GVISOR_TEST_NODE_AGENT", "tool-node-agent")
}

// NetworkPolicies returns the path of SIG Network's kube-network-policies (GVISOR_TEST_NETWORK_POLICIES,
// hack/tools/network-policies.sh), the VM node's NetworkPolicy enforcer.
func NetworkPolicies(t testing.TB) string {
	t.Helper()
	return executable(t, Env(t, "GVISOR_TEST_NETWORK_POLICIES", "tool-network-policies"), "GVISOR_TEST_NETWORK_POLICIES", "tool-network-policies")
}

// NVIDIAToolkit returns the paths of NVIDIA's nvidia-ctk and nvidia-cdi-hook (the directory GVISOR_TEST_NVIDIA_TOOLKIT,
// hack/tools/nvidia-toolkit.sh): the GPU operator's CDI specs and their hooks.
func NVIDIAToolkit(t testing.TB) (ctk, cdiHook string) {
	t.Helper()
	dir := Env(t, "GVISOR_TEST_NVIDIA_TOOLKIT", "tool-nvidia-toolkit")
	return executable(t, filepath.Join(dir, "nvidia-ctk"), "GVISOR_TEST_NVIDIA_TOOLKIT", "tool-nvidia-toolkit"),
		executable(t, filepath.Join(dir, "nvidia-cdi-hook"), "GVISOR_TEST_NVIDIA_TOOLKIT", "tool-nvidia-toolkit")
}
