// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// sandboxReleases are the releases the real-sandbox test runs on: every supported containerd minor (the operator
// guide's matrix), so every config version node-agent writes for them (2, 3 and 4).
var sandboxReleases = []string{"1.7", "2.0", "2.2", "2.4"}

// suite is what every node of the sandbox test shares: the Debian tools and images of test/node, the test
// registry with the installation image, and the OSCs naming it.
type suite struct {
	tools          nodetest.Tools
	images         *nodetest.Images
	registry       string
	gvisor, remove *extensionsv1alpha1.OperatingSystemConfig
	// metrics is the gVisor pool's OSC with sandbox metrics on (the metric server's file and unit).
	metrics *extensionsv1alpha1.OperatingSystemConfig
	// inImage are the pushed image's files by their path in the image.
	inImage map[string][]byte
	// installer is gvisor-installer as the image carries it; gvisorDir the release in it.
	installer []byte
	gvisorDir string
}

func newSuite(t testing.TB) *suite {
	t.Helper()
	for _, v := range sandboxReleases {
		installertest.Release(t, v)
	}
	gvisorDir := realcomponents.GVisorDir(t)
	s := &suite{tools: nodetest.NodeTools(t)}
	s.images = nodetest.BuildImages(t, s.tools)
	metricServer, err := os.ReadFile(installertest.MetricServer(t))
	if err != nil {
		t.Fatal(err)
	}
	gpuCheck, err := os.ReadFile(installertest.GPUCheck(t))
	if err != nil {
		t.Fatal(err)
	}
	files := []imageFile{
		{path: "gvisor-installer", mode: 0o755, data: buildInstaller(t, t.TempDir())},
		{path: oscwebhook.MetricServerBinary, mode: 0o755, data: metricServer},
		{path: oscwebhook.GPUCheckBinary, mode: 0o755, data: gpuCheck},
	}
	for _, name := range []string{"runsc", nodetest.ShimName} {
		data, err := os.ReadFile(filepath.Join(gvisorDir, name))
		if err != nil {
			t.Fatalf("GVISOR_TEST_GVISOR_DIR: %v", err)
		}
		files = append(files, imageFile{path: "opt/gvisor/" + name, mode: 0o755, data: data})
	}
	sums, err := os.ReadFile(filepath.Join(gvisorDir, nodecontract.SumsFile))
	if err != nil {
		t.Fatalf("GVISOR_TEST_GVISOR_DIR: %v", err)
	}
	files = append(files, imageFile{path: "opt/gvisor/" + nodecontract.SumsFile, mode: 0o644, data: sums})
	s.installer, s.gvisorDir = files[0].data, gvisorDir
	s.inImage = map[string][]byte{}
	for _, f := range files {
		s.inImage["/"+f.path] = f.data
	}
	s.registry = startRegistry(t)
	const tag = "v0.0.0-test"
	pushInstallationImageFiles(t, s.registry, tag, files)
	s.gvisor, s.remove = mutatedOSCs(t, s.registry+"/"+installationRepository, tag)
	s.metrics = sandboxMetricsOSC(t, s.registry+"/"+installationRepository, tag)
	return s
}

// TestNodeAgentGVisorPod is the OSC delivery mode on a real node, per release: node-agent's containerd step adds
// runsc to the node's config.toml (the release's default as the node's OS left it, with the test machine's
// adjustments, see test/node), node-agent's extractor pulls runsc, the shim and gvisor-installer from the
// installation image in the test registry into the bin dir, runsc.toml is written, and containerd restarts once,
// as node-agent restarts containerd.service, while the real `gvisor-installer prove` (the OSC's oneshot unit's
// ExecStart, the binary node-agent extracted) already runs, as node-agent starts the units in parallel with that
// restart: it waits for runsc and succeeds. Then a pod with handler runsc runs a container on the gVisor kernel
// with the OSC's runsc.toml in effect; prove succeeds again, and once runsc is gone fails with exit 1 and its
// one-line reason. Finally gVisor leaves the pool: node-agent's remove op
// and the files leaving the OSC; containerd restarts without runsc (runc still listed) and refuses a runsc pod.
func TestNodeAgentGVisorPod(t *testing.T) {
	s := newSuite(t)
	for _, v := range sandboxReleases {
		c := installertest.Release(t, v)
		t.Run(c.String(), func(t *testing.T) {
			ctx := context.Background()
			n := nodetest.New(t, nodetest.Config{Containerd: c, Tools: s.tools, Images: s.images})
			root := n.HostRoot()
			writeHostsToml(t, root, s.registry)
			starts := n.Starts()

			applied := time.Now()
			osc := s.gvisor.DeepCopy()
			if err := reconcileContainerd(t, c, root, n.Socket(), osc); err != nil {
				t.Fatalf("node-agent's ReconcileContainerdConfig on %s: %v", c, err)
			}
			writeInlineFiles(t, root, osc.Spec.Files)
			extracted := time.Now()
			extractFiles(t, root, n.Socket(), osc.Spec.Files)
			s.assertExtracted(t, root, osc.Spec.Files)
			t.Logf("node-agent's extractor: %d imageRef files in %s", len(s.inImage), time.Since(extracted).Round(time.Millisecond))
			tree := dumpInNode(t, c, root)
			assertRunsc(t, c, tree, []string{"plugins", c.PluginID(), "containerd", "runtimes"})
			// node-agent starts the changed units (the proof unit among them) in parallel with the restart of
			// containerd.service: the unit starts while containerd still runs without runsc and must wait.
			unit := proofUnit(t, osc)
			var proveOut bytes.Buffer
			prove := proveCommand(ctx, t, n, unit)
			prove.Stdout, prove.Stderr = &proveOut, &proveOut
			if err := prove.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // the unit is up before containerd goes down
			restartErr := n.Restart(ctx)
			proveErr := prove.Wait()
			if restartErr != nil {
				t.Fatalf("%s does not restart on node-agent's config: %v", c, restartErr)
			}
			if proveErr != nil {
				t.Fatalf("gvisor-installer prove, started before containerd's restart as node-agent does, on %s: %v\n%s", c, proveErr, proveOut.String())
			}
			if !strings.Contains(proveOut.String(), "waiting for containerd to list the runsc runtime") {
				t.Errorf("gvisor-installer prove, started before containerd's restart, did not wait for runsc:\n%s", proveOut.String())
			}
			t.Logf("gvisor-installer prove (unit started in parallel with the containerd restart): %s", lastLine(proveOut.String()))
			if err := (verify.CRI{Socket: n.Socket()}).Verify(ctx, verify.Runsc); err != nil {
				t.Fatalf("CRI after node-agent's config: %v", err)
			}
			// Host network: node-agent points CNI at /opt/cni/bin, which the harness node lacks.
			pod, _ := n.GVisorPod(t, true)
			// The OSC's runsc.toml (the providerConfig's net-raw) is what the shim passed to runsc.
			if cmdline, err := n.RunscSandboxCmdline(pod.ID); err != nil || !slices.Contains(cmdline, "--net-raw=true") {
				t.Errorf("the runsc sandbox does not carry the OSC's runsc.toml flag --net-raw=true: %q (%v)", cmdline, err)
			}
			t.Logf("OSC applied to gVisor sandbox running on %s: %s, %d containerd restart(s)", c, time.Since(applied).Round(time.Millisecond), n.Starts()-starts)
			if err := n.StopAndRemove(ctx, pod); err != nil {
				t.Fatal(err)
			}

			out, code := runExit(proveCommand(ctx, t, n, unit))
			if code != 0 {
				t.Fatalf("gvisor-installer prove on %s (a rerun of the unit): exit %d\n%s", c, code, out)
			}
			t.Logf("gvisor-installer prove (rerun): %s", lastLine(out))

			s.assertDaemonSetLayout(t, root)

			// A staged release that does not match the controller's sums is refused; the node keeps its release.
			bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
			current, _ := os.Readlink(filepath.Join(root, bin, nodecontract.CurrentLink))
			staged := filepath.Join(root, bin, nodecontract.StagedRelease, nodecontract.Runsc)
			good, err := os.ReadFile(staged)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(staged, []byte("not the release's runsc"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, code = runExit(proveCommand(ctx, t, n, unit))
			reason := lastLine(out)
			if now, _ := os.Readlink(filepath.Join(root, bin, nodecontract.CurrentLink)); code != 1 || !strings.Contains(reason, "runsc") ||
				!strings.HasSuffix(reason, " prove failed") || now != current {
				t.Errorf("gvisor-installer prove --activate with a staged runsc that is not the release's on %s: exit %d, last line %q, current %q (was %q); "+
					"want exit 1, the reason and the release kept\n%s", c, code, reason, now, current, out)
			}
			t.Logf("gvisor-installer prove --activate with a corrupt staged runsc: exit %d: %s", code, reason)
			if err := os.WriteFile(staged, good, 0o755); err != nil {
				t.Fatal(err)
			}

			// gVisor leaves the pool: node-agent stops gvisor-release.service (its ExecStop removes the release
			// layout), then unregisters runsc and deletes its files.
			release := releaseUnit(t, osc)
			if out, code := runExit(deactivateCommand(ctx, t, n, release)); code != 0 {
				t.Fatalf("%s's ExecStop on %s: exit %d\n%s", oscwebhook.ReleaseUnitName, c, code, out)
			}
			removed := s.remove.DeepCopy()
			if err := reconcileContainerd(t, c, root, n.Socket(), removed); err != nil {
				t.Fatalf("node-agent's ReconcileContainerdConfig of the OSC after gVisor left the pool: %v", err)
			}
			removeFilesLeft(t, root, osc.Spec.Files, removed.Spec.Files)
			if err := n.Restart(ctx); err != nil {
				t.Fatalf("%s does not restart after the remove op: %v", c, err)
			}
			if err := (verify.CRI{Socket: n.Socket()}).Verify(ctx, verify.NoRunsc); err != nil {
				t.Errorf("CRI after the remove op: %v", err)
			}
			if pod, err := n.RunPod(ctx, nodetest.PodSpec{Handler: "runsc", HostNetwork: true}); err == nil {
				t.Errorf("a runsc pod (%s) started after gVisor left the pool", pod.ID)
			}
			if handlers, err := n.RuntimeHandlers(ctx); err != nil || !slices.Contains(handlers, "runc") {
				t.Errorf("CRI runtimes after the remove op: %v (%v), want runc", handlers, err)
			}
			assertNothingLeft(t, root)
		})
	}
}

// assertExtracted checks every imageRef file of the OSC on the node: the image's bytes, the OSC's permissions.
func (s *suite) assertExtracted(t testing.TB, root string, files []extensionsv1alpha1.File) {
	t.Helper()
	n := 0
	for _, f := range files {
		if f.Content.ImageRef == nil {
			continue
		}
		n++
		want, ok := s.inImage[f.Content.ImageRef.FilePathInImage]
		if !ok {
			t.Errorf("the OSC's file %s names %s, which the installation image (pkg/images' layout) does not have", f.Path, f.Content.ImageRef.FilePathInImage)
			continue
		}
		p := filepath.Join(root, f.Path)
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s on the node is not the image's %s (%d bytes, want %d; %v)", f.Path, f.Content.ImageRef.FilePathInImage, len(got), len(want), err)
		}
		if st, err := os.Stat(p); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != permissions(f) {
			t.Errorf("%s on the node: mode %v, want the OSC's %v", f.Path, st.Mode().Perm(), permissions(f))
		}
	}
	want := len(s.inImage)
	if !slices.ContainsFunc(files, func(f extensionsv1alpha1.File) bool { return path.Base(f.Path) == oscwebhook.MetricServerBinary }) {
		want-- // the metric server is the OSC's only with sandbox metrics on
	}
	if n != want {
		t.Errorf("the OSC has %d imageRef files, want %d of the installation image's %d: %v", n, want, len(s.inImage), files)
	}
}

// proveCommand is the OSC's oneshot unit's ExecStart (argv) on the harness node: the binary node-agent extracted
// (its node path under the host root), --host-root the node's, and a cgroup parent below the node's (the harness
// has no kubelet, whose BestEffort cgroup the proof uses by default).
func proveCommand(ctx context.Context, t testing.TB, n *nodetest.Node, argv []string) *exec.Cmd {
	t.Helper()
	if len(argv) < 2 || argv[1] != "prove" || !slices.Contains(argv, "--host-root=/") {
		t.Fatalf("the sandbox-proof unit's ExecStart is not `<installer> prove --host-root=/ ...`: %q", argv)
	}
	args := []string{"prove", "--cgroup-parent=" + n.CgroupParent() + "/prove"}
	for _, a := range argv[2:] {
		if a == "--host-root=/" {
			a = "--host-root=" + n.HostRoot()
		}
		args = append(args, a)
	}
	return exec.CommandContext(ctx, n.HostPath(argv[0]), args...)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
