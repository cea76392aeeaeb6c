// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// TestInstallationChartContract renders the real installation chart, in install and uninstall mode, with the
// readiness gate off and on, and checks it against this program: the init container's command parses with our
// flags, the idle container and its readiness probe are gvisor-idle's, the runsc.toml of the ConfigMap passes our
// validation, every node path the installer touches is mounted under --host-root (and nothing more), and
// --label-node comes with NODE_NAME and a token.
func TestInstallationChartContract(t *testing.T) {
	r := newRenderer(t)
	for _, mode := range []render.Mode{render.ModeInstall, render.ModeUninstall} {
		for _, gate := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/readinessGate=%v", mode, gate), func(t *testing.T) {
				checkChartContract(t, r, mode, gate)
			})
		}
	}
}

func checkChartContract(t *testing.T, r *render.Renderer, mode render.Mode, gate bool) {
	const binDir = "/var/bin/containerruntimes"
	// debug without debug-log: the renderer adds the default debug-log, which the installer must accept too.
	m, err := r.Installation(render.InstallationValues{
		WorkerPool:    "pool",
		BinaryPath:    binDir,
		ConfigFlags:   map[string]string{"net-raw": "true", "debug": "true", "platform": "systrap"},
		Mode:          mode,
		ReadinessGate: gate,
	})
	if err != nil {
		t.Fatal(err)
	}
	var ds *appsv1.DaemonSet
	var cm *corev1.ConfigMap
	for _, o := range m.Objects() {
		switch obj := o.(type) {
		case *appsv1.DaemonSet:
			ds = obj
		case *corev1.ConfigMap:
			cm = obj
		}
	}
	if ds == nil {
		t.Fatalf("chart rendered no DaemonSet: %s", m.YAML())
	}
	if install := mode == render.ModeInstall; install != (cm != nil) {
		t.Fatalf("mode %s rendered ConfigMap %v: want one exactly in install mode", mode, cm != nil)
	}
	spec := ds.Spec.Template.Spec
	if spec.HostPID || spec.HostIPC || spec.HostNetwork {
		t.Errorf("DaemonSet uses host namespaces; the installer needs none")
	}
	// The installer is the init container "installer" (its termination message stays in the pod's status), the
	// pod idles in the container "idle"; installed with debug on, the container debug-logs keeps the node's debug
	// logs beside it.
	wantContainers := 1
	if mode == render.ModeInstall {
		wantContainers = 2
	}
	if len(spec.InitContainers) != 1 || spec.InitContainers[0].Name != "installer" || len(spec.Containers) != wantContainers || spec.Containers[0].Name != "idle" {
		t.Fatalf("init containers %d, containers %d: want the init container installer, the container idle and, with debug on, %s", len(spec.InitContainers), len(spec.Containers), render.DebugLogsContainer)
	}
	c, idler := spec.InitContainers[0], spec.Containers[0]
	if mode == render.ModeInstall {
		checkDebugLogsContainer(t, spec, spec.Containers[1], c.Image)
	}

	// The command is ours and parses.
	cmd := string(mode)
	if len(c.Command) < 2 || c.Command[0] != "/gvisor-installer" || c.Command[1] != cmd {
		t.Fatalf("command = %v, want /gvisor-installer %s ...", c.Command, cmd)
	}
	fs, f := newFlagSet(cmd, io.Discard)
	if err := fs.Parse(c.Command[2:]); err != nil || fs.NArg() != 0 {
		t.Fatalf("chart's %s flags do not parse: %v %v", cmd, err, fs.Args())
	}
	// An init container must exit: no --idle.
	if f.idle || f.readyFile == "" || f.restart != "systemd" || f.binDir != binDir || f.hostRoot != "/host" || f.terminationMessage != corev1.TerminationMessagePathDefault {
		t.Errorf("chart does not run the init container mode of the contract: %+v", f)
	}
	if mode == render.ModeInstall && (f.runscConfig == "" || f.source != "/opt/gvisor") {
		t.Errorf("install without the release or runsc config: %+v", f)
	}
	// The idle container is gvisor-idle, the program next to /gvisor-installer, and so is its probe.
	idleBin := filepath.Join(filepath.Dir(c.Command[0]), idleBinaryName)
	if idler.Image != c.Image || len(idler.Command) == 0 || idler.Command[0] != idleBin || len(idler.Args) != 0 {
		t.Errorf("idle container %v %v (image %s): want %s from the installer's image", idler.Command, idler.Args, idler.Image, idleBin)
	}
	if mode == render.ModeInstall {
		checkReprovingIdle(t, idler, c, idleBin, f.binDir)
	} else {
		checkPlainIdle(t, idler, idleBin, f.readyFile)
	}

	// --label-node exactly with the gate, and then with what it needs: NODE_NAME from the downward API and a token.
	if f.labelNode != gate {
		t.Errorf("--label-node = %v with readinessGate %v", f.labelNode, gate)
	}
	if gate {
		if len(c.Env) != 1 || c.Env[0].Name != nodelabel.NodeNameEnv || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
			c.Env[0].ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
			t.Errorf("env %+v: want %s from spec.nodeName", c.Env, nodelabel.NodeNameEnv)
		}
		if spec.ServiceAccountName == "" || !hasToken(spec, c) {
			t.Errorf("no service account token for --label-node: account %q, mounts %+v", spec.ServiceAccountName, c.VolumeMounts)
		}
	}
	// The token is the installer's alone: not automounted, so the idle container, which runs for the pod's
	// life, has no API access.
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken || hasToken(spec, idler) {
		t.Errorf("automountServiceAccountToken %v, idle container mounts %+v: want false and no token in the idle container",
			spec.AutomountServiceAccountToken, idler.VolumeMounts)
	}

	// runsc.toml as rendered passes our validation with the flags sorted.
	if cm != nil {
		flags, err := runscconfig.Validate("runsc.toml", []byte(cm.Data["runsc.toml"]))
		if err != nil || strings.Join(flags, ",") != "debug,debug-log,net-raw,platform" {
			t.Errorf("ConfigMap runsc.toml: %v %v\n%s", flags, err, cm.Data["runsc.toml"])
		}
	}

	// Every node path we touch is under a mount below --host-root; the config and ready file too.
	mounts := map[string]bool{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.MountPath] = true
	}
	for _, nodePath := range []string{binDir, filepath.Dir(nodecontract.ContainerdConfigPath), filepath.Dir(verify.CRISocket), filepath.Dir(restart.SystemBusSocket)} {
		if !mounts[f.hostRoot+nodePath] {
			t.Errorf("%s is not mounted at %s%s", nodePath, f.hostRoot, nodePath)
		}
	}
	for _, p := range []string{f.runscConfig, f.readyFile} {
		if p != "" && !mounts[filepath.Dir(p)] {
			t.Errorf("%s is not on a volume mount", p)
		}
	}
	if want := 5 + boolInt(gate); mode == render.ModeUninstall && len(c.VolumeMounts) != want {
		t.Errorf("uninstall mounts %d volumes, want the 4 host paths, the ready file's emptyDir and, with the gate, the token: %+v", len(c.VolumeMounts), c.VolumeMounts)
	}
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == f.hostRoot || vm.MountPath == f.hostRoot+"/" {
			t.Errorf("the node's whole / is mounted")
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("installer container should have a read-only root filesystem (it writes only to mounts)")
	}
}

// hasToken reports whether c mounts a service account token where client-go's in-cluster config reads it
// (pkg/nodelabel), from a projected volume that kubelet fills with a pod-bound token.
func hasToken(spec corev1.PodSpec, c corev1.Container) bool {
	for _, vm := range c.VolumeMounts {
		if vm.MountPath != "/var/run/secrets/kubernetes.io/serviceaccount" {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == vm.Name && v.Projected != nil && slices.ContainsFunc(v.Projected.Sources, func(p corev1.VolumeProjection) bool {
				return p.ServiceAccountToken != nil && p.ServiceAccountToken.Audience == "" && p.ServiceAccountToken.Path == "token"
			}) {
				return true
			}
		}
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newRenderer is the renderer the controller uses, with this build's image vector.
func newRenderer(t *testing.T) *render.Renderer {
	t.Helper()
	r, err := render.Load(version.Version, os.Getenv(imagevector.OverrideEnv))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkPlainIdle: uninstall mode idles as nobody, its probe on the ready file the installer writes, mounted
// read-only and alone.
func checkPlainIdle(t *testing.T, idler corev1.Container, idleBin, readyFile string) {
	t.Helper()
	if len(idler.Command) != 1 {
		t.Errorf("idle container %v: want %s alone", idler.Command, idleBin)
	}
	probe := idler.ReadinessProbe.Exec.Command
	if len(probe) != 3 || probe[0] != idleBin || probe[1] != "ready" || probe[2] != "--ready-file="+readyFile {
		t.Errorf("readiness probe %v: want %s ready --ready-file=%s (the idle program and the ready file of the command)", probe, idleBin, readyFile)
	}
	checkIdleProbe(t, probe)
	if len(idler.VolumeMounts) != 1 || idler.VolumeMounts[0].MountPath != filepath.Dir(readyFile) || !idler.VolumeMounts[0].ReadOnly {
		t.Errorf("idle container mounts %+v: want only the ready file's directory, read-only", idler.VolumeMounts)
	}
	if sc := idler.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("idle container should run as non-root with a read-only root filesystem: %+v", sc)
	}
}

// checkReprovingIdle: install mode's idle container runs `gvisor-idle reprove ... -- /gvisor-installer prove ...`
// (the re-proof): prove's flags parse and look at the installer's host root and bin dir; the probe reads
// the proven file the re-proof writes; every host mount but /run/containerd is read-only;
// no capability, no privilege escalation, a read-only root filesystem.
func checkReprovingIdle(t *testing.T, idler, installer corev1.Container, idleBin, binDir string) {
	t.Helper()
	cmd := idler.Command
	sep := slices.Index(cmd, "--")
	if len(cmd) < 2 || cmd[1] != "reprove" || sep < 0 || len(cmd) < sep+3 || cmd[sep+1] != installer.Command[0] || cmd[sep+2] != "prove" {
		t.Fatalf("idle container %v: want %s reprove ... -- %s prove ...", cmd, idleBin, installer.Command[0])
	}
	pf, code := parseProve(cmd[sep+3:], io.Discard)
	if pf == nil {
		t.Fatalf("the re-proof's prove flags %v do not parse (exit %d)", cmd[sep+3:], code)
	}
	if pf.hostRoot != "/host" || pf.binDir != binDir {
		t.Errorf("prove looks at host root %q and bin dir %q, want /host and %s", pf.hostRoot, pf.binDir, binDir)
	}
	var proven string
	for _, a := range cmd[2:sep] {
		if v, ok := strings.CutPrefix(a, "--proven-file="); ok {
			proven = v
		}
	}
	probe := idler.ReadinessProbe.Exec.Command
	if proven == "" || len(probe) != 3 || probe[0] != idleBin || probe[1] != "ready" || probe[2] != "--ready-file="+proven {
		t.Errorf("readiness probe %v: want %s ready --ready-file=<reprove's --proven-file %q>", probe, idleBin, proven)
	}
	checkIdleProbe(t, probe)
	// Read-only but for containerd's run directory, where the proof sandbox's log directory goes (package sandbox).
	for _, m := range idler.VolumeMounts {
		if strings.HasPrefix(m.MountPath, "/host") && !m.ReadOnly && m.MountPath != "/host"+filepath.Dir(verify.CRISocket) {
			t.Errorf("idle container mounts %s writable: the re-proof writes nothing on the node but its proof's log directory", m.MountPath)
		}
	}
	sc := idler.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) != 0 {
		t.Errorf("the re-proving idle container should drop every capability, not escalate and have a read-only root filesystem: %+v", sc)
	}
}

// checkDebugLogsContainer: the container debug-logs runs this installer's keep-debug-logs with a command line it
// parses, from the installer's image, over the node's /var/log/runsc mounted at its --dir.
func checkDebugLogsContainer(t *testing.T, spec corev1.PodSpec, k corev1.Container, image string) {
	t.Helper()
	if k.Name != render.DebugLogsContainer || k.Image != image || len(k.Command) < 2 || k.Command[0] != "/gvisor-installer" || k.Command[1] != "keep-debug-logs" {
		t.Fatalf("container %s %v (image %s): want /gvisor-installer keep-debug-logs from %s", k.Name, k.Command, k.Image, image)
	}
	keeper, code := parseKeepDebugLogs(k.Command[2:], io.Discard)
	if keeper == nil {
		t.Fatalf("the chart's keep-debug-logs flags %v do not parse (exit %d)", k.Command[2:], code)
	}
	for _, m := range k.VolumeMounts {
		for _, v := range spec.Volumes {
			if v.Name == m.Name && m.MountPath == keeper.Dir && !m.ReadOnly && v.HostPath != nil && v.HostPath.Path == strings.TrimSuffix(v1alpha1.DebugLogDir, "/") {
				return
			}
		}
	}
	t.Errorf("%s's --dir %s is not the node's %s, writable: mounts %+v", k.Name, keeper.Dir, v1alpha1.DebugLogDir, k.VolumeMounts)
}
