// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// reproveWait bounds the wait for one timer-driven proof: the interval plus a proof (a few seconds) and slack.
const reproveWait = render.MinReproveInterval + 50*time.Second

// TestNodeAgentReprove is the OSC mode's continuous proof on a real node with a real systemd: the OSC's proof unit
// and timer, byte for byte as the webhook renders them (ReproveInterval 10s), are installed the way node-agent
// installs units (its own D-Bus code: enable, daemon-reload, restart), the timer runs the real `gvisor-installer
// prove` again and again against the node's containerd, and node-agent's own systemd-unit check reads the result
// into the Node's SystemdUnitsReady condition, which the extension's health check reads through pkg/oscstate:
// healthy after the first proofs, our unit "failed" once the staged runsc is broken (not the release's: the
// activation refuses it) and healthy again after the next proof once it is back. The one change to the units: a drop-in
// points ExecStart at the harness node (proveCommand: its host root and cgroup parent) and sends the proof's output
// to a file instead of a journal this systemd does not have.
func TestNodeAgentReprove(t *testing.T) {
	s := newSuite(t)
	osc := s.gvisor.DeepCopy()
	n := s.appliedNode(t, osc)
	root := n.HostRoot()

	sd := startSystemd(t)
	proofLog := installUnits(t, sd, n, osc)
	if _, err := nodeAgentSystemd(t, sd, systemdRequest{Op: "apply", Units: []string{oscwebhook.ProofUnitName, oscwebhook.ProofTimerName}}); err != nil {
		t.Fatalf("node-agent starting the proof unit and its timer (the proof must pass on a good node): %v\n%s", err, tail(proofLog))
	}
	first := sd.show(t, oscwebhook.ProofUnitName, "InvocationID")["InvocationID"]
	if p := sd.show(t, oscwebhook.ProofTimerName, "ActiveState", "SubState"); p["ActiveState"] != "active" {
		t.Fatalf("the proof timer is not active after node-agent started it: %v", p)
	}

	start := time.Now()
	again, result := sd.nextRun(t, oscwebhook.ProofUnitName, first, reproveWait)
	if result != "success" {
		t.Fatalf("the timer's proof on a good node: %s\n%s", result, tail(proofLog))
	}
	t.Logf("the timer proved the node again after %s: %s", time.Since(start).Round(100*time.Millisecond), lastLine(tail(proofLog)))
	assertProofReport(t, sd, osc, "")

	// A staged runsc that is not the release's (what the activation refuses: it would otherwise repair a broken
	// release from the staged one).
	runsc := filepath.Join(root, extensionsv1alpha1.ContainerDRuntimeContainersBinFolder, nodecontract.StagedRelease, "runsc")
	good, err := os.ReadFile(runsc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runsc, []byte("not the release's runsc"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken, result := sd.nextRun(t, oscwebhook.ProofUnitName, again, reproveWait)
	if result == "success" {
		t.Fatalf("the timer's proof with a corrupt staged runsc succeeded\n%s", tail(proofLog))
	}
	reason := lastLine(tail(proofLog))
	if !strings.Contains(reason, "runsc") || !strings.HasSuffix(reason, " prove failed") {
		t.Errorf("the failed proof's last line (what journalctl -u %s shows) does not give the reason: %q", oscwebhook.ProofUnitName, reason)
	}
	t.Logf("the timer's proof with runsc broken: %s: %s", result, reason)
	assertProofReport(t, sd, osc, oscwebhook.ProofUnitName+": failed")

	if err := os.WriteFile(runsc, good, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, result := sd.nextRun(t, oscwebhook.ProofUnitName, broken, reproveWait); result != "success" {
		t.Fatalf("the timer's proof after runsc was repaired: %s\n%s", result, tail(proofLog))
	}
	assertProofReport(t, sd, osc, "")
}

// appliedNode is a real node of the newest containerd release on which node-agent's code applied osc: containerd's
// config, the inline files, the image files extracted from the test registry (checked against the image),
// containerd restarted on it, and the proof unit's first run, which activates the staged release.
func (s *suite) appliedNode(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) *nodetest.Node {
	t.Helper()
	c := installertest.Release(t, "2.4")
	n := nodetest.New(t, nodetest.Config{Containerd: c, Tools: s.tools, Images: s.images})
	root := n.HostRoot()
	writeHostsToml(t, root, s.registry)
	if err := reconcileContainerd(t, c, root, n.Socket(), osc); err != nil {
		t.Fatalf("node-agent's ReconcileContainerdConfig on %s: %v", c, err)
	}
	writeInlineFiles(t, root, osc.Spec.Files)
	extractFiles(t, root, n.Socket(), osc.Spec.Files)
	s.assertExtracted(t, root, osc.Spec.Files)
	if err := n.Restart(context.Background()); err != nil {
		t.Fatalf("%s does not restart on node-agent's config: %v", c, err)
	}
	// node-agent starts the proof unit, which puts the staged release in place.
	if out, code := runExit(proveCommand(context.Background(), t, n, proofUnit(t, osc))); code != 0 {
		t.Fatalf("the proof unit (gvisor-installer prove --activate) on %s: exit %d\n%s", c, code, out)
	}
	return n
}

// installUnits writes the OSC's units into the systemd's unit dir as node-agent does (its content, unchanged), plus
// the harness drop-in of the proof unit, and returns the file the proof's output goes to.
func installUnits(t testing.TB, sd *systemd, n *nodetest.Node, osc *extensionsv1alpha1.OperatingSystemConfig) string {
	t.Helper()
	for _, u := range osc.Spec.Units {
		if u.Name == oscwebhook.ProofUnitName || u.Name == oscwebhook.ProofTimerName {
			sd.writeUnit(t, u.Name, *u.Content)
		}
	}
	proofLog := filepath.Join(t.TempDir(), "proof.log")
	cmd := proveCommand(context.Background(), t, n, proofUnit(t, osc))
	sd.writeUnit(t, oscwebhook.ProofUnitName+".d/harness.conf", strings.Join([]string{
		"[Service]",
		"ExecStart=",
		"ExecStart=" + strings.Join(cmd.Args, " "),
		"StandardOutput=append:" + proofLog,
		"StandardError=append:" + proofLog,
		"",
	}, "\n"))
	return proofLog
}

// assertProofReport runs node-agent's systemd-unit check with osc as the last-applied OSC and holds what the
// extension reads from the Node (oscstate.Read, the health check's source) to want: "" healthy, else our unit's
// part of the condition. The OSC's other units (containerd, kubelet) are left out: this systemd does not run them.
func assertProofReport(t testing.TB, sd *systemd, osc *extensionsv1alpha1.OperatingSystemConfig, want string) {
	t.Helper()
	ours := osc.DeepCopy()
	ours.Spec.Units = slices.DeleteFunc(ours.Spec.Units, func(u extensionsv1alpha1.Unit) bool {
		return u.Name != oscwebhook.ProofUnitName && u.Name != oscwebhook.ProofTimerName
	})
	node, err := nodeAgentSystemd(t, sd, systemdRequest{Op: "check", OSC: ours, Node: "node-0", Pool: osctest.GVisorPool})
	if err != nil {
		t.Fatal(err)
	}
	var cond string
	for _, c := range node.Status.Conditions {
		cond += string(c.Type) + "=" + string(c.Status) + " (" + c.Message + ")"
	}
	shoot := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(node).Build()
	pool, err := oscstate.Read(context.Background(), shoot, node.Labels[v1beta1constants.LabelWorkerPool])
	if err != nil {
		t.Fatal(err)
	}
	if len(pool.Nodes) != 1 || pool.Nodes[0].ProofFailed != want {
		t.Fatalf("node-agent's systemd-unit check: %s; the extension reads %+v, want ProofFailed %q", cond, pool.Nodes, want)
	}
	if want == "" && !hasCondition(node, corev1.ConditionTrue) {
		t.Errorf("node-agent's systemd-unit check on a proven node: %s, want SystemdUnitsReady True", cond)
	}
	t.Logf("node-agent's systemd-unit check: %s", cond)
}

func hasCondition(node *corev1.Node, status corev1.ConditionStatus) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == "SystemdUnitsReady" {
			return c.Status == status
		}
	}
	return false
}

// tail is the end of the proof's output file.
func tail(path string) string { return installertest.TailFile(path, 20) }
