// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// Node paths the node's containerd and shims read; the installer writes them under HostRoot.
const (
	// ConfigPath is containerd's config file (the release's adjusted default, which the installer edits).
	ConfigPath = "/etc/containerd/config.toml"
	// SocketPath is containerd's CRI socket.
	SocketPath = "/run/containerd/containerd.sock"
	// DefaultBinDir is where the installer puts runsc and the shim (installer.DefaultBinDir).
	DefaultBinDir = "/var/bin/containerruntimes"
)

// Config configures a node.
type Config struct {
	// Containerd is the release the node runs.
	Containerd installertest.Containerd
	// Tools are busybox and the CNI plugins (NodeTools).
	Tools Tools
	// Images are the tarballs to import (BuildImages).
	Images *Images
	// BinDir is the node path of the bin dir; empty: DefaultBinDir.
	BinDir string
	// ContainerdConfig, if set, replaces config.toml once the images are imported (on the release's adjusted
	// default, DefaultConfig), and containerd is restarted on it: a node the way an operator or the field's extension
	// left it. It must carry the test machine's adjustments (AdjustForTestMachine) for pods to start.
	ContainerdConfig []byte
	// ExpectDown says that containerd refuses ContainerdConfig: it exits (1.x on the field's extension's early
	// `plugins.cri` tables), or it runs without its CRI plugin (1.x on a runtimes map without runc). New checks
	// that the restart fails and leaves containerd so, as systemd would.
	ExpectDown bool
}

// Node is a real containerd in private mount and network namespaces: see the package doc.
type Node struct {
	// C is the containerd release.
	C installertest.Containerd
	t testing.TB
	// hostRoot is the installer's --host-root; work holds containerd's root and state, CNI, logs and the wrapper.
	hostRoot, work, binDir string
	cgroupParent, bridge   string
	holder                 *holder
	ctd                    *daemon
	conn                   *grpc.ClientConn
	rt                     runtimeapi.RuntimeServiceClient
	img                    runtimeapi.ImageServiceClient
	// mountPoints is the node's lease on its bind targets on the machine's file system (package mountpoint): held
	// from before they are created until the holder, with its mounts, is gone.
	mountPoints *mountpoint.Lease
	// pods numbers the pods for unique names.
	pods int
	// suffix is random; it names the node's cgroup parent, bridge and /run tmpfs (see nodeProcs).
	suffix string
}

// New starts a node and registers its cleanup (which fails the test if anything of the node is left).
func New(t testing.TB, cfg Config) *Node {
	t.Helper()
	if cfg.BinDir == "" {
		cfg.BinDir = DefaultBinDir
	}
	suffix := randomHex(4)
	n := &Node{C: cfg.Containerd, t: t, binDir: cfg.BinDir, cgroupParent: "/gvisor-test-" + suffix, bridge: "gvt" + suffix, suffix: suffix}
	var err error
	// Short: the socket under it is dialled from outside the node (108-byte limit of unix socket paths).
	if n.hostRoot, err = os.MkdirTemp("", "hr-"); err != nil {
		t.Fatal(err)
	}
	if n.work, err = os.MkdirTemp("", "node-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.cleanup)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := n.start(ctx, cfg); err != nil {
		t.Fatalf("starting a %s node: %v", n.C, err)
	}
	return n
}

// start brings the node up: its files, its mount points, the namespace holder, containerd (checked to run on the
// config written), the images, and, if cfg has one, containerd again on cfg.ContainerdConfig.
func (n *Node) start(ctx context.Context, cfg Config) error {
	if cfg.Images == nil {
		return errors.New("Config.Images is nil: build them with BuildImages")
	}
	if err := n.writeFiles(cfg); err != nil {
		return err
	}
	binds := n.binds()
	if err := n.createMountPoints(binds); err != nil {
		return err
	}
	var err error
	if n.holder, err = startHolder(ctx, "gvisor-test-run-"+n.suffix, binds); err != nil {
		return err
	}
	if err := n.startContainerd(ctx, cfg); err != nil {
		return err
	}
	if err := n.importImages(ctx, cfg.Images); err != nil {
		return err
	}
	return n.applyContainerdConfig(ctx, cfg)
}

// writeFiles creates the node's directories and writes containerd's default config.toml, the CNI config and the
// shim wrapper.
func (n *Node) writeFiles(cfg Config) error {
	for _, d := range []string{"etc/containerd/conf.d", "run/containerd", "run/cdi", strings.TrimPrefix(n.binDir, "/")} {
		if err := os.MkdirAll(filepath.Join(n.hostRoot, d), 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{"wrapper", "cni/net.d", "cni/ipam", "cni/cache", "opt", "logs"} {
		if err := os.MkdirAll(n.path(d), 0o755); err != nil {
			return err
		}
	}
	config, err := DefaultConfig(n.C, n.path("cni/net.d"), cfg.Tools.CNIDir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.hostRoot, ConfigPath), config, 0o644); err != nil {
		return err
	}
	if err := writeCNIConfig(n.path("cni/net.d"), n.bridge, n.path("cni/ipam")); err != nil {
		return err
	}
	return WriteShimWrapper(n.path("wrapper"), filepath.Join(n.binDir, ShimName))
}

// binds are the node's directories as the holder mounts them over the host's paths in the node's mount namespace.
func (n *Node) binds() []bind {
	return []bind{
		{filepath.Join(n.hostRoot, "etc/containerd"), "/etc/containerd"},
		{filepath.Join(n.hostRoot, "run/containerd"), "/run/containerd"},
		{filepath.Join(n.hostRoot, "run/cdi"), "/run/cdi"}, // CDISpecDir
		{filepath.Join(n.hostRoot, n.binDir), n.binDir},
		// libcni's result cache (not configurable in containerd) and the opt plugin's directory stay off the host.
		{n.path("cni/cache"), "/var/lib/cni"},
		{n.path("opt"), "/opt/containerd"},
	}
}

// createMountPoints leases the bind targets on the machine, creating those it lacks; the cleanup releases them.
func (n *Node) createMountPoints(binds []bind) error {
	var dirs []string
	for _, b := range binds {
		if !strings.HasPrefix(b.Target, "/run/") { // /run is the node's own tmpfs
			dirs = append(dirs, b.Target)
		}
	}
	var err error
	n.mountPoints, err = mountpoint.Acquire(dirs...)
	return err
}

// startContainerd checks that containerd reads the node's config.toml as written, starts it and connects to its
// CRI socket.
func (n *Node) startContainerd(ctx context.Context, cfg Config) error {
	dump, err := n.holder.nsenter(ctx, n.C.Bin(), "--config", ConfigPath, "config", "dump").Output()
	if err != nil {
		return fmt.Errorf("%s config dump of the node's config.toml: %w", n.C, exitDetail(err))
	}
	if err := checkInEffect(n.C, dump, n.path("cni/net.d"), cfg.Tools.CNIDir); err != nil {
		return err
	}
	n.ctd = &daemon{n: n, logFile: n.path("containerd.log")}
	if err := n.ctd.start(ctx); err != nil {
		return err
	}
	n.conn, err = grpc.NewClient("unix://"+n.Socket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	n.rt, n.img = runtimeapi.NewRuntimeServiceClient(n.conn), runtimeapi.NewImageServiceClient(n.conn)
	return nil
}

// applyContainerdConfig restarts containerd on cfg.ContainerdConfig, if set, and checks that it comes up unless
// cfg.ExpectDown says it refuses the config.
func (n *Node) applyContainerdConfig(ctx context.Context, cfg Config) error {
	if cfg.ContainerdConfig == nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(n.hostRoot, ConfigPath), cfg.ContainerdConfig, 0o644); err != nil {
		return err
	}
	err := n.Restart(ctx)
	switch {
	case cfg.ExpectDown && err == nil:
		return n.errorf("%s starts on Config.ContainerdConfig, but Config.ExpectDown says it refuses it", n.C)
	case !cfg.ExpectDown && err != nil:
		return fmt.Errorf("restarting on Config.ContainerdConfig: %w", err)
	}
	return nil
}

// importImages imports the tarballs with the release's ctr, inside the node, and checks that the CRI sees them.
func (n *Node) importImages(ctx context.Context, imgs *Images) error {
	for _, img := range [][2]string{{imgs.Pause, PauseImage}, {imgs.Busybox, BusyboxImage}} {
		if err := n.ImportImage(ctx, img[0], img[1]); err != nil {
			return err
		}
	}
	return nil
}

// ImportImage imports tarball (docker-archive, e.g. WriteBinaryImage's) with the release's ctr, inside the node,
// and waits until the CRI knows ref.
func (n *Node) ImportImage(ctx context.Context, tarball, ref string) error {
	cmd := n.holder.nsenter(ctx, filepath.Join(n.C.Dir, "ctr"), "--address", SocketPath, "-n", "k8s.io", "images", "import", tarball)
	if out, err := cmd.CombinedOutput(); err != nil {
		return n.errorf("ctr images import %s: %v\n%s", tarball, err, out)
	}
	// The CRI learns of imported images from containerd's events, asynchronously: wait (bounded) until it knows it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		resp, err := n.img.ImageStatus(cctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: ref}})
		cancel()
		if err == nil && resp.GetImage() != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return n.errorf("CRI ImageStatus %s after the import: %v (image %v)", ref, err, resp.GetImage())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// HostRoot is the installer's --host-root for this node.
func (n *Node) HostRoot() string { return n.hostRoot }

// BinDir is the node path of the bin dir (the installer's --bin-dir).
func (n *Node) BinDir() string { return n.binDir }

// Socket is containerd's CRI socket as seen from outside the node (what the installer's verify.CRI dials).
func (n *Node) Socket() string { return filepath.Join(n.hostRoot, SocketPath) }

// CgroupParent is the node's cgroup (cgroupfs path): every pod's cgroup parent lies below it, so the cleanup
// finds and removes what runc and runsc created. Other CRI clients on the node (the installer's proof) should use
// a parent below it too.
func (n *Node) CgroupParent() string { return n.cgroupParent }

// HostPath returns where the node path p is on the real host (under HostRoot), for the bind-mounted directories.
func (n *Node) HostPath(p string) string { return filepath.Join(n.hostRoot, p) }

// Restart restarts containerd inside the node (the shims and sandboxes keep running; containerd reconnects).
func (n *Node) Restart(ctx context.Context) error { return n.ctd.restart(ctx) }

// Starts counts containerd (re)starts, including the first.
func (n *Node) Starts() int { return n.ctd.starts }

// LogTail returns the last lines of containerd's log.
func (n *Node) LogTail(lines int) string { return n.ctd.logTail(lines) }

func (n *Node) path(p string) string { return filepath.Join(n.work, p) }

// errorf is an error with containerd's log tail, which usually says why.
func (n *Node) errorf(format string, args ...any) error {
	tail := "(containerd not started)"
	if n.ctd != nil {
		tail = n.ctd.logTail(25)
	}
	return fmt.Errorf(format+"\n--- %s log (tail) ---\n%s", append(args, n.C, tail)...)
}

// cleanup removes everything of the node and fails the test for what it cannot remove.
func (n *Node) cleanup() {
	t := n.t
	if n.ctd != nil && n.ctd.running() && n.rt != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := n.removeAllPods(ctx); err != nil {
			t.Errorf("node cleanup: %v", err)
		}
		cancel()
	}
	if n.conn != nil {
		_ = n.conn.Close()
	}
	if n.ctd != nil {
		n.ctd.stop()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", n.C, n.ctd.logTail(60))
		}
	}
	if n.holder != nil {
		if left := n.killAll(15 * time.Second); len(left) > 0 {
			t.Errorf("node cleanup: processes of the node survive SIGKILL: %v", left)
		}
	}
	if left := n.removeCgroups(10 * time.Second); len(left) > 0 {
		t.Errorf("node cleanup: cgroups left: %v", left)
	}
	if left := mountsUnder(n.hostRoot, n.work); len(left) > 0 {
		t.Errorf("node cleanup: mounts of the node leaked into the test's mount namespace: %v", left)
	}
	for _, dir := range []string{n.hostRoot, n.work} {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("node cleanup: %v", err)
		}
	}
	if err := n.mountPoints.Release(); err != nil {
		t.Errorf("node cleanup: removing the mount points the harness created: %v", err)
	}
}

// killAll SIGKILLs the node's processes (shims, runsc sandboxes and gofers first, then the holder, whose death
// ends the namespaces, their mounts, the bridge and the sysctls) and returns those still alive after timeout.
func (n *Node) killAll(timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		var others []proc
		for _, p := range n.nodeProcs() {
			if p.pid != n.holder.pid {
				others = append(others, p)
			}
		}
		if len(others) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return procNames(others)
		}
		for _, p := range others {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.holder.kill()
	for {
		left := n.nodeProcs()
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return procNames(left)
		}
		for _, p := range left {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func procNames(ps []proc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// mountsUnder returns the test process's mounts under any of dirs.
func mountsUnder(dirs ...string) []string {
	var out []string
	for _, m := range mountpoint.Points("/proc/self/mountinfo") {
		for _, d := range dirs {
			if m == d || strings.HasPrefix(m, d+"/") {
				out = append(out, m)
			}
		}
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
