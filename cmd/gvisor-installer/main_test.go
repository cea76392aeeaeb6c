// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// node creates a host root with the Gardener v2 config and a stub release; it returns the common flags.
func node(t testing.TB) (root string, args []string) {
	t.Helper()
	root = t.TempDir()
	cfg, err := os.ReadFile("../../pkg/installer/containerdconfig/testdata/configs/gardener-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "etc/containerd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/containerd/config.toml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	m := uint16(installertest.MachineX86_64)
	if runtime.GOARCH == "arm64" {
		m = installertest.MachineAArch64
	}
	src := filepath.Join(t.TempDir(), "gvisor")
	installertest.WriteRelease(t, src, map[string][]byte{
		"runsc":                    installertest.StubELF(m, "runsc"),
		"containerd-shim-runsc-v1": installertest.StubELF(m, "shim"),
	})
	return root, []string{"--host-root=" + root, "--source=" + src, "--restart=none"}
}

func runCmd(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestInstallPlanReady(t *testing.T) {
	root, flags := node(t)
	ready := filepath.Join(t.TempDir(), "ready")
	if code, _, _ := runCmd(context.Background(), "ready", "--ready-file="+ready); code == 0 {
		t.Fatalf("ready before install")
	}

	before := installertest.HashTree(t, root)
	code, out, errOut := runCmd(context.Background(), append([]string{"plan"}, flags...)...)
	if code != 0 || !strings.Contains(out, "write /etc/containerd/config.toml (appended)") || !strings.Contains(out, "containerd restart") {
		t.Fatalf("plan: %d\n%s\n%s", code, out, errOut)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, root)) {
		t.Fatalf("plan changed the host")
	}

	code, out, errOut = runCmd(context.Background(), append([]string{"install", "--ready-file=" + ready}, flags...)...)
	if code != 0 {
		t.Fatalf("install: %d\n%s", code, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "install: changed ") {
		t.Errorf("want one summary line, got %q", out)
	}
	for _, step := range []string{"step=verify-release", "step=verify-runsc-config", "step=parse-config", "step=plan-config", "step=write"} {
		if !strings.Contains(errOut, step) {
			t.Errorf("log lacks %s:\n%s", step, errOut)
		}
	}
	if code, _, _ := runCmd(context.Background(), "ready", "--ready-file="+ready); code != 0 {
		t.Errorf("not ready after install")
	}

	code, out, _ = runCmd(context.Background(), append([]string{"install"}, flags...)...)
	if code != 0 || strings.TrimSpace(out) != "install: unchanged; containerd not restarted" {
		t.Errorf("second install: %d %q", code, out)
	}
	code, out, _ = runCmd(context.Background(), append([]string{"plan"}, flags...)...)
	if code != 0 || strings.TrimSpace(out) != "plan: unchanged; no containerd restart" {
		t.Errorf("plan after install: %d %q", code, out)
	}

	installed := installertest.HashTree(t, root)
	code, out, errOut = runCmd(context.Background(), append([]string{"plan", "--uninstall"}, flags...)...)
	if code != 0 || !strings.Contains(out, "write /etc/containerd/config.toml (restored from backup)") || !strings.Contains(out, "remove /var/bin/containerruntimes/runsc") ||
		!strings.HasSuffix(strings.TrimSpace(out), "changes; containerd restart") {
		t.Errorf("plan --uninstall: %d\n%s\n%s", code, out, errOut)
	}
	if !reflect.DeepEqual(installed, installertest.HashTree(t, root)) {
		t.Errorf("plan --uninstall changed the host")
	}
}

func TestIdleBlocksUntilSignalAndIsReady(t *testing.T) {
	_, flags := node(t)
	ready := filepath.Join(t.TempDir(), "run", "ready")
	if code := runIdle(t, ready, append([]string{"install", "--idle", "--ready-file=" + ready}, flags...)...); code != 0 {
		t.Errorf("idle exit code %d, want 0", code)
	}
}

// runIdle runs an --idle command until its ready file exists (what the readiness probe checks), then cancels it
// as SIGTERM does through signal.NotifyContext, and returns its exit code.
func runIdle(t *testing.T, ready string, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var stdout string
	go func() {
		code, out, _ := runCmd(ctx, args...)
		stdout = out
		done <- code
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if code, _, _ := runCmd(context.Background(), "ready", "--ready-file="+ready); code == 0 {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("%s --idle returned %d before SIGTERM: %s", args[0], code, stdout)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		return code
	case <-time.After(5 * time.Second):
		t.Fatalf("%s --idle did not return after the signal", args[0])
	}
	return -1
}

// TestUninstallIdle is the node side of removing gVisor from a pool: the controller's uninstall DaemonSet runs
// `uninstall --idle --ready-file=...`; the pod turns Ready once this node is clean, whether it was installed, never
// installed, or is already clean, and stays Ready until SIGTERM.
func TestUninstallIdle(t *testing.T) {
	root, flags := node(t)
	// The DaemonSet mounts the bin dir with type DirectoryOrCreate; it is Gardener's shared binaryPath and stays.
	if err := os.MkdirAll(filepath.Join(root, "var/bin/containerruntimes"), 0o755); err != nil {
		t.Fatal(err)
	}
	cleanNode := installertest.HashTree(t, root)
	uninstallFlags := []string{"--host-root=" + root, "--restart=none"}
	ready := filepath.Join(t.TempDir(), "run", "gvisor-installer", "ready")

	// Never installed: done at once, nothing touched.
	if code := runIdle(t, ready, append([]string{"uninstall", "--idle", "--ready-file=" + ready}, uninstallFlags...)...); code != 0 {
		t.Fatalf("uninstall on a clean node: exit %d", code)
	}
	if !reflect.DeepEqual(cleanNode, installertest.HashTree(t, root)) {
		t.Errorf("uninstall changed a node that never had gVisor")
	}

	if code, _, errOut := runCmd(context.Background(), append([]string{"install"}, flags...)...); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	if code := runIdle(t, ready, append([]string{"uninstall", "--idle", "--ready-file=" + ready}, uninstallFlags...)...); code != 0 {
		t.Fatalf("uninstall: exit %d", code)
	}
	if got := installertest.HashTree(t, root); !reflect.DeepEqual(cleanNode, got) {
		t.Errorf("uninstall did not give back the node as it was:\nbefore %v\nafter  %v", cleanNode, got)
	}

	// A failed uninstall is not ready: the ready file of an earlier run is gone and the exit code says why.
	if err := os.WriteFile(filepath.Join(root, "etc/containerd/config.toml"), []byte("[plugins\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(context.Background(), append([]string{"uninstall", "--idle", "--ready-file=" + ready}, uninstallFlags...)...)
	if code != 2 || !strings.Contains(errOut, "not valid TOML") {
		t.Errorf("uninstall on a broken config: exit %d, want 2 with the refusal:\n%s", code, errOut)
	}
	if code, _, _ := runCmd(context.Background(), "ready", "--ready-file="+ready); code == 0 {
		t.Errorf("ready after a failed uninstall")
	}
}

// TestUninstallContractFlags: the exact command line the controller's uninstall DaemonSet runs parses.
func TestUninstallContractFlags(t *testing.T) {
	fs, f := newFlagSet("uninstall", io.Discard)
	args := []string{"--host-root=/host", "--bin-dir=/var/bin/containerruntimes", "--restart=systemd", "--idle", "--ready-file=/run/gvisor-installer/ready"}
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		t.Fatalf("%v: %v", args, err)
	}
	if !f.idle || f.readyFile != "/run/gvisor-installer/ready" || f.restart != "systemd" || f.binDir != "/var/bin/containerruntimes" || f.hostRoot != "/host" {
		t.Errorf("parsed %+v", f)
	}
	if fs.Lookup("source") != nil || fs.Lookup("runsc-config") != nil {
		t.Errorf("uninstall takes no release or runsc config: the uninstall DaemonSet needs no ConfigMap")
	}
}

func TestRefusalExitCodeAndUntouchedHost(t *testing.T) {
	root, flags := node(t)
	cfg := filepath.Join(root, "etc/containerd/config.toml")
	if err := os.WriteFile(cfg, []byte("version = 2\ndisabled_plugins = [\"io.containerd.grpc.v1.cri\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	before := installertest.HashTree(t, root)
	code, _, errOut := runCmd(context.Background(), append([]string{"install", "--ready-file=" + ready}, flags...)...)
	if code != 2 || !strings.Contains(errOut, "refusing /etc/containerd/config.toml: the CRI plugin is disabled") || !strings.Contains(errOut, "fix:") {
		t.Errorf("want exit 2 with a refusal naming the file and fix, got %d:\n%s", code, errOut)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, root)) {
		t.Errorf("refused install changed the host")
	}
	if _, err := os.Stat(ready); err == nil {
		t.Errorf("ready file written although the install was refused")
	}
}

// TestSystemdRestartFailureRollsBack: with --restart=systemd and no reachable system bus the restart fails, the
// installer restores config.toml and exits 1, saying what failed.
func TestSystemdRestartFailureRollsBack(t *testing.T) {
	root, flags := node(t)
	cfgPath := filepath.Join(root, "etc/containerd/config.toml")
	original, _ := os.ReadFile(cfgPath)
	flags[len(flags)-1] = "--restart=systemd"
	code, out, errOut := runCmd(context.Background(), append([]string{"install", "--verify-timeout=2s"}, flags...)...)
	if code != 1 || !strings.Contains(errOut, "connecting to systemd over "+root+"/run/dbus/system_bus_socket") {
		t.Fatalf("want exit 1 naming the bus socket, got %d:\n%s\n%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(cfgPath); !bytes.Equal(got, original) {
		t.Errorf("config.toml not rolled back")
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"install", "--restart=sometimes"}, {"install", "--idle"}, {"ready"}} {
		if code, _, _ := runCmd(context.Background(), args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestWrongArchitectureImageRefused is the field bug "pods not ready on amd64": the amd64 variant of the
// installation image carried arm64 gVisor binaries. The installer must refuse before touching the node (no
// binary, no config, not ready), naming the file, its architecture and the fix.
func TestWrongArchitectureImageRefused(t *testing.T) {
	root, flags := node(t)
	src := filepath.Join(t.TempDir(), "gvisor")
	arm64 := installertest.GoBinary(t, "arm64")
	installertest.WriteRelease(t, src, map[string][]byte{"runsc": arm64, "containerd-shim-runsc-v1": arm64})
	flags[1] = "--source=" + src
	ready := filepath.Join(t.TempDir(), "ready")
	before := installertest.HashTree(t, root)

	code, out, errOut := runCmd(context.Background(), append([]string{"install", "--node-arch=amd64", "--idle", "--ready-file=" + ready}, flags...)...)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (refusal):\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"refusing " + filepath.Join(src, "containerd-shim-runsc-v1"), "is a linux/arm64 binary", "this node is linux/amd64", "fix: the installation image's linux/amd64 variant carries binaries of another architecture", "make push-images"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("message does not say %q:\n%s", want, errOut)
		}
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, root)) {
		t.Errorf("the node changed although the release was refused")
	}
	if code, _, _ := runCmd(context.Background(), "ready", "--ready-file="+ready); code == 0 {
		t.Errorf("ready although the install was refused")
	}
}

// TestLabelNodePreconditions: --label-node needs the node name, the pod's service account and (install) the CRI
// verification of --restart=systemd. Without them the command is a usage error (exit 2) before anything on the
// node changes, naming what is missing and how to provide it.
func TestLabelNodePreconditions(t *testing.T) {
	root, flags := node(t)
	systemd := append([]string{}, flags...)
	systemd[len(systemd)-1] = "--restart=systemd"
	uninstallFlags := []string{"--host-root=" + root, "--restart=systemd"}
	t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in a cluster, whatever runs the test
	for _, tc := range []struct {
		name, nodeName string
		args           []string
		want           string
	}{
		{"install without NODE_NAME", "", append([]string{"install", "--label-node"}, systemd...), "NODE_NAME is not set: the installation pod must set it from the downward API"},
		{"uninstall without NODE_NAME", "", append([]string{"uninstall", "--label-node"}, uninstallFlags...), "NODE_NAME is not set"},
		{"plan without NODE_NAME", "", append([]string{"plan", "--label-node"}, flags...), "NODE_NAME is not set"},
		{"install outside the cluster", "node-a", append([]string{"install", "--label-node"}, systemd...), "no in-cluster API server"},
		{"uninstall outside the cluster", "node-a", append([]string{"uninstall", "--label-node"}, uninstallFlags...), "is the gate switched on in the extension, so that the installation pod mounts it?"},
		{"install with --restart=none", "node-a", append([]string{"install", "--label-node"}, flags...), "--label-node needs --restart=systemd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NODE_NAME", tc.nodeName)
			ready := filepath.Join(t.TempDir(), "ready")
			before := installertest.HashTree(t, root)
			args := tc.args
			if args[0] != "plan" {
				args = append(args, "--ready-file="+ready)
			}
			code, out, errOut := runCmd(context.Background(), args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want 2 saying %q:\n%s\n%s", code, tc.want, out, errOut)
			}
			if !reflect.DeepEqual(before, installertest.HashTree(t, root)) {
				t.Errorf("the node changed")
			}
			if _, err := os.Stat(ready); err == nil {
				t.Errorf("ready file written")
			}
		})
	}
}

// TestPlanShowsLabelStep: plan lists the readiness label step where the run takes it (after the install's
// changes, before the uninstall's), without contacting the API server.
func TestPlanShowsLabelStep(t *testing.T) {
	_, flags := node(t)
	flags[len(flags)-1] = "--restart=systemd" // as install needs it with --label-node; plan restarts nothing
	t.Setenv("NODE_NAME", "node-a")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	code, out, errOut := runCmd(context.Background(), append([]string{"plan", "--label-node"}, flags...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	const set = "label node node-a gvisor.runtime.extensions.gardener.cloud/ready=true (after runsc is verified over CRI; idempotent)"
	if code != 0 || len(lines) < 3 || lines[len(lines)-2] != set || !strings.HasPrefix(lines[len(lines)-1], "plan: ") {
		t.Errorf("plan --label-node: exit %d, want the label step after the changes:\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(context.Background(), append([]string{"plan", "--uninstall", "--label-node"}, flags...)...)
	const unset = "unlabel node node-a gvisor.runtime.extensions.gardener.cloud/ready (before runsc is unregistered; idempotent)"
	if lines := strings.Split(out, "\n"); code != 0 || lines[0] != unset {
		t.Errorf("plan --uninstall --label-node: exit %d, want the label step first:\n%s\n%s", code, out, errOut)
	}
}
