// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

func TestIdleBinaryPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "idle")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := idleBinaryPath(exe); err != nil || got != exe {
		t.Errorf("idleBinaryPath(%s) = %q, %v", exe, got, err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"): "does not exist",
		plain:                         "not an executable file",
		dir:                           "not an executable file",
	} {
		if _, err := idleBinaryPath(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("idleBinaryPath(%s) error = %v, want %q", path, err, want)
		}
	}
	// Default: next to this executable (the test binary, which has no gvisor-idle beside it).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idleBinaryPath(""); err == nil || !strings.Contains(err.Error(), filepath.Join(filepath.Dir(self), idleBinaryName)) {
		t.Errorf("idleBinaryPath(\"\") error = %v, want it to name %s next to %s", err, idleBinaryName, self)
	}
}

// buildImageRoot builds the installation image's two programs, as pkg/images does, into one directory (the
// image's /); withIdle false leaves out gvisor-idle, as in images older than it.
func buildImageRoot(t testing.TB, withIdle bool) string {
	t.Helper()
	dir := t.TempDir()
	buildCmd(t, dir, "gvisor-installer")
	if withIdle {
		buildCmd(t, dir, idleBinaryName)
	}
	return dir
}

// buildCmd builds ../<name> into dir, static and stripped.
func buildCmd(t testing.TB, dir, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binaries; skipped with -short")
	}
	out := filepath.Join(dir, name)
	args := []string{"build", "-ldflags", "-s -w", "-o", out, "../" + name}
	if name == idleBinaryName {
		// As the image has it, to the byte: its size is its RSS. The installer is built without -trimpath, so that
		// its packages come from the build cache of this test binary (its RSS is not what is measured).
		args = append([]string{"build", "-trimpath"}, args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, msg)
	}
	return out
}

// idleProcess is a running `gvisor-installer install --idle` of a built image root.
type idleProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	ready          string
}

// startIdle runs the built installer's DaemonSet command line (--restart=none: no containerd) on a fresh host root
// and returns once its ready file exists.
func startIdle(t testing.TB, root string) *idleProcess {
	t.Helper()
	_, flags := node(t)
	p := &idleProcess{ready: filepath.Join(t.TempDir(), "run", "ready")}
	p.cmd = exec.Command(filepath.Join(root, "gvisor-installer"), append([]string{"install", "--idle", "--ready-file=" + p.ready}, flags...)...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() }) //nolint:errcheck // after a failure; fine if it exited
	waitUntil(t, func() bool { _, err := os.Stat(p.ready); return err == nil }, "the ready file")
	return p
}

// stop sends SIGTERM, as the kubelet does, and expects exit status 0.
func (p *idleProcess) stop(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit status 0\nstderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not exit within 10s of SIGTERM")
	}
}

// exe is what /proc/<pid>/exe names now (the program the PID runs, after any exec). The link is briefly missing
// while the process execs.
func (p *idleProcess) exe() (string, error) {
	return os.Readlink("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/exe")
}

// settled waits until the PID runs want (after both execs of the idle phase, see cmd/gvisor-idle), then a moment
// more for its runtime to finish starting.
func (p *idleProcess) settled(t testing.TB, want string, env string) {
	t.Helper()
	pid := strconv.Itoa(p.cmd.Process.Pid)
	waitUntil(t, func() bool {
		exe, err := p.exe()
		if err != nil || exe != want {
			return false
		}
		environ, err := os.ReadFile("/proc/" + pid + "/environ")
		return err == nil && (env == "" || slices.Contains(strings.Split(string(environ), "\x00"), env))
	}, want+" running as PID "+pid)
	time.Sleep(200 * time.Millisecond)
}

// TestIdleExecsGvisorIdle: after a successful install the DaemonSet's process is gvisor-idle, holding at most
// 2 MiB, and SIGTERM still ends it with status 0; the readiness probe (gvisor-idle ready) sees the ready file.
func TestIdleExecsGvisorIdle(t *testing.T) {
	root := buildImageRoot(t, true)
	p := startIdle(t, root)
	idle := filepath.Join(root, idleBinaryName)
	p.settled(t, idle, "GOMAXPROCS=1")
	m := measure(t, p.cmd.Process.Pid)
	t.Logf("idle phase: %s, %s", idle, m)
	if m.rss > 2048 {
		t.Errorf("idle installation pod holds %d KiB RSS, want at most 2048 (2 MiB)", m.rss)
	}
	if !strings.Contains(p.stderr.String(), "Idling in "+idle) {
		t.Errorf("log does not say it idles in %s:\n%s", idle, p.stderr.String())
	}
	if out, err := exec.Command(idle, "ready", "--ready-file="+p.ready).CombinedOutput(); err != nil {
		t.Errorf("readiness probe: %v %s", err, out)
	}
	p.stop(t)
}

// TestIdleWithoutGvisorIdle: an image without gvisor-idle still idles (in-process, as before) and says why.
func TestIdleWithoutGvisorIdle(t *testing.T) {
	root := buildImageRoot(t, false)
	p := startIdle(t, root)
	time.Sleep(300 * time.Millisecond)
	if got, err := p.exe(); err != nil || got != filepath.Join(root, "gvisor-installer") {
		t.Fatalf("PID runs %s (%v), want %s", got, err, filepath.Join(root, "gvisor-installer"))
	}
	t.Logf("in-process idle: %s", measure(t, p.cmd.Process.Pid))
	if log := p.stderr.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "Idling in-process") ||
		!strings.Contains(log, filepath.Join(root, idleBinaryName)+" does not exist") {
		t.Errorf("no warning naming the missing %s:\n%s", idleBinaryName, log)
	}
	p.stop(t)
}

// memUsage is the memory of a process tree: the sum of VmRSS (what each process holds, shared pages counted in each)
// and of Pss (shared pages divided among the processes that map them).
type memUsage struct{ procs, rss, pss int }

func (u memUsage) String() string {
	return strconv.Itoa(u.procs) + " process(es), VmRSS " + strconv.Itoa(u.rss) + " KiB, Pss " + strconv.Itoa(u.pss) + " KiB"
}

// measure sums VmRSS and Pss over pid and its descendants.
func measure(t testing.TB, pid int) memUsage {
	t.Helper()
	var u memUsage
	pids := []int{pid}
	for len(pids) > 0 {
		p := strconv.Itoa(pids[0])
		pids = pids[1:]
		u.procs++
		u.rss += procField(t, "/proc/"+p+"/status", "VmRSS:")
		u.pss += procField(t, "/proc/"+p+"/smaps_rollup", "Pss:")
		children, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range strings.Fields(string(children)) {
			n, _ := strconv.Atoi(c)
			pids = append(pids, n)
		}
	}
	return u
}

func procField(t testing.TB, file, key string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					return n
				}
			}
		}
	}
	t.Fatalf("no %s in %s", key, file)
	return 0
}

func waitUntil(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fieldIdle is the idle part of the field's extension's install script (its ConfigMap install-gvisor-containerd.sh):
// the installation pod's process for its whole life there.
const fieldIdle = `echo "Task completed, sleeping ..."; while true; do sleep 3600; done`

// BenchmarkIdleRSS measures what the installation pod holds on every node once installed (BENCHMARKS.md): ours
// after the exec into gvisor-idle, ours in-process (images without gvisor-idle), and the field's extension's shell
// loop under Debian's static busybox sh (its image is Alpine, whose sh is busybox) and under dash. Metrics are KiB
// summed over the pod's processes.
func BenchmarkIdleRSS(b *testing.B) {
	report := func(b *testing.B, u memUsage) {
		b.ReportMetric(float64(u.rss), "VmRSS-KiB")
		b.ReportMetric(float64(u.pss), "Pss-KiB")
		b.ReportMetric(float64(u.procs), "processes")
		b.ReportMetric(0, "ns/op")
	}
	ours := func(withIdle bool) func(b *testing.B) {
		return func(b *testing.B) {
			root := buildImageRoot(b, withIdle)
			b.ResetTimer()
			var u memUsage
			for range b.N {
				p := startIdle(b, root)
				want, env := filepath.Join(root, idleBinaryName), "GOMAXPROCS=1"
				if !withIdle {
					want, env = filepath.Join(root, "gvisor-installer"), ""
				}
				p.settled(b, want, env)
				u = measure(b, p.cmd.Process.Pid)
				p.stop(b)
			}
			report(b, u)
		}
	}
	field := func(shell ...string) func(b *testing.B) {
		return func(b *testing.B) {
			var u memUsage
			for range b.N {
				cmd := exec.Command(shell[0], append(shell[1:], "-c", fieldIdle)...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so that the loop's sleep is killed with it
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				pid := strconv.Itoa(cmd.Process.Pid)
				waitUntil(b, func() bool { // the loop's sleep has started
					children, err := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
					return err == nil && len(strings.Fields(string(children))) > 0
				}, "the loop's sleep")
				time.Sleep(200 * time.Millisecond)
				u = measure(b, cmd.Process.Pid)
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // the shell and its sleep
				cmd.Wait()                                      //nolint:errcheck // killed
			}
			report(b, u)
		}
	}
	b.Run("ours=gvisor-idle", ours(true))
	b.Run("ours=in-process", ours(false))
	b.Run("field=busybox-sh", func(b *testing.B) { field(busybox(b), "sh")(b) })
	b.Run("field=dash", func(b *testing.B) {
		dash, err := exec.LookPath("dash")
		if err != nil {
			b.Skip("no dash: Debian's /bin/sh")
		}
		field(dash)(b)
	})
}

// busybox is Debian's static busybox from the real-sandbox test node's components (GVISOR_TEST_NODE).
func busybox(b *testing.B) string {
	for _, kv := range strings.Fields(realcomponents.Node(b)) {
		if path, ok := strings.CutPrefix(kv, "busybox="); ok {
			return path
		}
	}
	b.Fatal("GVISOR_TEST_NODE names no busybox=PATH")
	return ""
}

// checkIdleProbe runs the chart's readiness probe command line with the real gvisor-idle (built as the image has
// it): it must parse, and report "not ready" (exit 1) for the ready file, which does not exist on this machine.
func checkIdleProbe(t *testing.T, probe []string) {
	t.Helper()
	if testing.Short() {
		return
	}
	if _, err := os.Stat(probe[2][len("--ready-file="):]); err == nil {
		t.Logf("%s exists on this machine: not running the probe (cannot tell its verdicts apart)", probe[2])
		return
	}
	bin := buildCmd(t, t.TempDir(), idleBinaryName)
	out, err := exec.Command(bin, probe[1:]...).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "not ready") {
		t.Errorf("probe %v with the real %s: %v %s; want exit 1, not ready", probe, idleBinaryName, err, out)
	}
}

// TestImageCarriesIdle: the installation image (pkg/images) carries cmd/gvisor-idle next to /gvisor-installer, where
// the installer and the chart's probe look for it, built stripped (its size is its RSS).
func TestImageCarriesIdle(t *testing.T) {
	d, ok := images.Definition(imagevector.ImageNameInstallation)
	if !ok {
		t.Fatal("pkg/images has no installation image")
	}
	paths := map[string]string{}
	for _, b := range d.Binaries {
		paths[b.Command] = b.Path
	}
	installer := paths["gvisor-installer"]
	if installer != images.InstallerPath || paths[idleBinaryName] != filepath.Join(filepath.Dir(installer), idleBinaryName) {
		t.Errorf("installation image binaries %v: want gvisor-installer at %s and %s next to it", paths, images.InstallerPath, idleBinaryName)
	}
	if !strings.HasPrefix(images.LDFlags("v1"), "-s -w ") {
		t.Errorf("the images' binaries are linked with %q, not stripped (-s -w)", images.LDFlags("v1"))
	}
}
