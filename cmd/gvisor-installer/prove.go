// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/cgroups"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdversion"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// runProve is `gvisor-installer prove`, the sandbox proof of a node where gVisor is installed. It starts one real
// sandbox with the runsc handler through the CRI (pkg/installer/sandbox, the same proof install runs) and removes
// it, after waiting (bounded by --registration-timeout) until containerd's CRI lists the runsc runtime, reading
// containerd's version over CRI (refusing one below the minimum, as install does) and checking the files.
//
// Two callers:
//   - the DaemonSet mode's idle container, every re-proof interval (gvisor-idle reprove): prove changes nothing on
//     the node;
//   - the OperatingSystemConfig mode's oneshot unit gvisor-sandbox-proof.service, with --activate: gardener-node-agent
//     has staged the release, the pool's runsc flags and the controller's sums under <bin-dir>/gvisor/staged
//     (imageRef and inline files) and registered runsc in containerd's config; prove first puts the staged release
//     in the release layout exactly as install does (installer.ActionActivate: the same release directory,
//     runsc.toml and links, nvproxy for this node's driver with --nvproxy-preflight-binary), then proves it and records
//     the outcome; a release that fails falls back to the last proven one.
//
// Why it waits: gardener-node-agent (executeUnitCommands) restarts the changed units, this one
// included, in parallel with containerd.service when the OSC changed containerd's config, so on a node's first
// gVisor OSC the unit may start while containerd still runs on its old config (no runsc) or is restarting. A
// proof that fails while containerd restarts under it is tried once more after the wait.
//
// Exit 0: the sandbox started and was removed; the verdict goes to stdout. Exit 1: not proven; the last line on
// stderr (the journal's, `systemctl status` shows it) is the installer's one-line reason, the same words install's
// termination message uses ("gVisor sandbox did not start on containerd 2.2.9: ...; gvisor-installer <version>
// prove failed", or "containerd 1.6.20 is not supported (minimum containerd 1.7.0); ..."), and
// --termination-message also writes it to a file. Exit 2: usage error.
func runProve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := parseProve(args, stderr)
	if f == nil {
		return code
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("version", version.Version)
	p := prove{
		hostRoot: f.hostRoot, binDir: f.binDir, runscConfig: f.runscConfig, registration: f.registration, log: log,
		prover: sandbox.CRI{Socket: filepath.Join(f.hostRoot, verify.CRISocket), Timeout: f.timeout, CgroupParent: f.cgroupParent, Creator: versionString() + " prove"},
	}
	var verdict string
	var err error
	if f.activate {
		verdict, err = p.activate(ctx, f)
	} else {
		verdict, err = p.run(ctx)
	}
	if err != nil {
		line := terminationLine("prove", err, verdict)
		if f.termination != "" {
			if werr := os.WriteFile(f.termination, []byte(line+"\n"), 0o644); werr != nil {
				log.Error("writing --termination-message", "file", f.termination, "error", werr.Error())
			}
		}
		fmt.Fprintln(stderr, line)
		return 1
	}
	fmt.Fprintln(stdout, "prove: "+verdict)
	return 0
}

// activate is prove --activate: it waits for runsc's registration, then has the installer put the staged release
// in the layout, check containerd's version and cgroups, prove with p's proof and record the outcome
// (installer.ActionActivate). The verdict is the installer's, with the GPU report on a GPU node.
func (p prove) activate(ctx context.Context, f *proveFlags) (string, error) {
	registered := p.registered(ctx)
	if registered != nil {
		p.log.Warn("containerd does not list the runsc runtime; proving anyway", "step", "wait-registration", "error", registered.Error())
	}
	o := installer.Options{
		HostRoot: f.hostRoot, BinDir: f.binDir, NodeArch: runtime.GOARCH, Logger: p.log,
		Source:      filepath.Join(f.hostRoot, f.binDir, nodecontract.StagedRelease),
		RunscConfig: filepath.Join(f.hostRoot, f.binDir, nodecontract.StagedFlags),
		ReleaseSums: filepath.Join(f.hostRoot, f.binDir, nodecontract.StagedSums),
		Verifier:    verify.CRI{Socket: p.prover.Socket},
		CgroupRoot:  filepath.Join(f.hostRoot, cgroups.Root),
	}
	if f.sandbox {
		o.Prover = proofWithRetry{p: p, registered: registered}
	}
	if f.gpuBinary != "" {
		o.GPU = gpu.Exec{Binary: filepath.Join(f.hostRoot, f.gpuBinary), HostRoot: f.hostRoot}
		if f.sandbox {
			o.GPUProver = gpu.CRI{Socket: p.prover.Socket, Binary: f.gpuBinary, CgroupParent: f.cgroupParent, Creator: versionString() + " prove"}
		}
	}
	res, err := installer.Activate(ctx, o)
	if err != nil {
		p.log.Error("activation failed", "step", "activate", "summary", res.FailedSummary())
	} else {
		p.log.Info("activated", "step", "activate", "summary", res.Summary())
	}
	verdict := res.Verdict
	if verdict == "" && err != nil {
		verdict = err.Error()
	}
	if g := installer.GPUReport(res.GPU); g != nil {
		verdict += "; " + g.String()
	}
	return verdict, err
}

// proofWithRetry is prove's sandbox proof, also as the installer's Prover (activate): the files checked, one sandbox,
// and once more after the registration wait when containerd may have been restarted under it.
type proofWithRetry struct {
	p          prove
	registered error
}

func (w proofWithRetry) Prove(ctx context.Context) (sandbox.Proof, error) {
	p := w.p
	missing := p.checkFiles()
	proof, err := p.prover.Prove(ctx)
	if err != nil && w.registered == nil && ctx.Err() == nil {
		// runsc was registered: containerd may have been restarted under the proof. Wait and try once more.
		p.log.Warn("gVisor sandbox did not start; trying once more", "step", "prove-sandbox", "error", err.Error())
		if err := p.registered(ctx); err != nil {
			p.log.Warn("containerd does not list the runsc runtime; proving anyway", "step", "wait-registration", "error", err.Error())
		}
		missing = p.checkFiles()
		proof, err = p.prover.Prove(ctx)
	}
	switch {
	case err != nil && len(missing) > 0:
		// What node-agent and the activation should have put there comes first: containerd's own error follows.
		return proof, fmt.Errorf("%s; %w", strings.Join(missing, "; "), err)
	case err == nil && len(missing) > 0:
		p.log.Warn("the gVisor sandbox started although files are missing: runsc runs from elsewhere", "problems", strings.Join(missing, "; "))
	}
	return proof, err
}

// proveFlags are prove's flags.
type proveFlags struct {
	hostRoot, binDir, runscConfig, cgroupParent, termination string
	gpuBinary                                                string
	activate, sandbox                                        bool
	timeout, registration                                    time.Duration
}

// parseProve parses prove's command line; nil flags mean done, with the exit code (0 for -h).
func parseProve(args []string, stderr io.Writer) (*proveFlags, int) {
	f := &proveFlags{}
	fs := flag.NewFlagSet("prove", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.hostRoot, "host-root", "/", "where the node's / is mounted (the CRI socket is <host-root>"+verify.CRISocket+")")
	fs.StringVar(&f.binDir, "bin-dir", installer.DefaultBinDir, "node path of runsc and containerd-shim-runsc-v1 (the ContainerRuntime's binaryPath); checked, and named in the reason")
	fs.StringVar(&f.runscConfig, "runsc-config", runscconfig.NodePath, "node path of the runsc.toml containerd's runsc runtime names (ConfigPath); checked")
	fs.DurationVar(&f.timeout, "prove-timeout", sandbox.DefaultTimeout, "bound of the sandbox proof, sandbox image pull included")
	fs.DurationVar(&f.registration, "registration-timeout", 3*time.Minute, "how long to wait until containerd serves CRI with the runsc runtime "+
		"(node-agent restarts containerd on its new config in parallel with this unit)")
	fs.StringVar(&f.cgroupParent, "cgroup-parent", "", "the proof sandbox's cgroup parent; empty: the kubelet's BestEffort QoS cgroup in containerd's cgroup driver (tests without a kubelet set their own)")
	fs.StringVar(&f.termination, "termination-message", "", "on failure, also write the one-line reason to this file (created or replaced)")
	fs.BoolVar(&f.activate, "activate", false, "first put the release gardener-node-agent staged under <bin-dir>/"+nodecontract.StagedDir+
		" in the release layout, as install does, and record the proof's outcome, falling back to the last proven release "+
		"(the OperatingSystemConfig mode)")
	fs.BoolVar(&f.sandbox, "prove-sandbox", true, "with --activate, false only activates the release and records it without a sandbox proof "+
		"(the extension's --prove-sandbox=false)")
	fs.StringVar(&f.gpuBinary, "nvproxy-preflight-binary", "", "with --activate, node path of gvisor-gpu-check: judge this node's NVIDIA driver (on a node with "+
		gpu.ControlDevice+") and turn runsc's nvproxy on in the release's runsc.toml exactly for a supported driver, then prove the GPUs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "prove: unexpected arguments %v\n", fs.Args())
		return nil, 2
	}
	if f.gpuBinary != "" && !f.activate {
		fmt.Fprintln(stderr, "prove: --nvproxy-preflight-binary needs --activate (nvproxy is set in the release's runsc.toml when the release is put in place)")
		return nil, 2
	}
	if !f.sandbox && !f.activate {
		fmt.Fprintln(stderr, "prove: --prove-sandbox=false without --activate leaves nothing to do")
		return nil, 2
	}
	return f, 0
}

// prove is one proof run on a node.
type prove struct {
	hostRoot, binDir, runscConfig string
	registration                  time.Duration
	prover                        sandbox.CRI
	log                           *slog.Logger
}

// run returns the verdict (the reason first, in install's words) and, when not proven, the error.
func (p prove) run(ctx context.Context) (verdict string, err error) {
	registered := p.registered(ctx)
	if registered != nil {
		// The proof decides: its error says what containerd answers.
		p.log.Warn("containerd does not list the runsc runtime; proving anyway", "step", "wait-registration", "error", registered.Error())
	}
	on, err := p.containerd(ctx)
	if err != nil {
		return err.Error(), err
	}
	if err := p.cgroups(ctx); err != nil {
		return err.Error(), err
	}
	proof, err := proofWithRetry{p: p, registered: registered}.Prove(ctx)
	if err != nil {
		p.log.Error("gVisor sandbox did not start", "step", "prove-sandbox", "containerd", on, "error", err.Error())
		verdict = "gVisor sandbox did not start" + on + ": " + err.Error()
		if diagnosis := gpu.DriverChanged(err); diagnosis != "" {
			verdict = diagnosis + "; " + verdict // the installer's own diagnosis first, as install's lines have it
		}
		return verdict, errors.New(verdict)
	}
	p.log.Info("gVisor sandbox proven", "step", "prove-sandbox", "handler", proof.Handler, "runtime_type", proof.RuntimeType,
		"started_in", proof.Started.String(), "total", proof.Total.String(), "leftovers_removed", proof.Leftovers)
	return proof.String() + on, nil
}

// registered waits until containerd serves CRI with the runsc runtime of our type (pkg/installer/verify, the
// installer's own check), at most p.registration.
func (p prove) registered(ctx context.Context) error {
	cri := verify.CRI{Socket: p.prover.Socket}
	vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := cri.Verify(vctx, verify.Runsc)
	cancel()
	if err == nil {
		return nil
	}
	start := time.Now()
	p.log.Info("waiting for containerd to list the runsc runtime (node-agent restarts containerd in parallel)", "step", "wait-registration",
		"timeout", p.registration.String(), "now", err.Error())
	if err := verify.Until(ctx, cri, verify.Runsc, p.registration, time.Second); err != nil {
		return err
	}
	p.log.Info("containerd lists the runsc runtime", "step", "wait-registration", "waited", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// containerd reads containerd's version over CRI and refuses one below the minimum (install's policy); it returns
// " on containerd X" for the verdict ("" when the version is unknown: the proof decides).
func (p prove) containerd(ctx context.Context) (string, error) {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	name, raw, err := verify.CRI{Socket: p.prover.Socket}.RuntimeVersion(vctx)
	if err != nil {
		p.log.Warn("containerd's version is unknown (CRI Version failed); the sandbox proof decides", "step", "containerd-version", "error", err.Error())
		return "", nil
	}
	on := strings.TrimSpace(name + " " + raw)
	if _, _, err := containerdversion.Check(name, raw); err != nil {
		return "", fmt.Errorf("%s is not supported (minimum containerd %s)", on, containerdversion.Minimum())
	}
	return " on " + on, nil
}

// cgroups refuses a node whose cgroups would not hold gVisor pods (install's policy, package cgroups): the node's
// hierarchy under --host-root, its driver over CRI. Where either cannot be read, the proof decides.
func (p prove) cgroups(ctx context.Context) error {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	node, err := cgroups.Read(vctx, filepath.Join(p.hostRoot, cgroups.Root), verify.CRI{Socket: p.prover.Socket})
	if err != nil {
		p.log.Warn("cannot read the node's cgroups; the sandbox proof decides", "step", "cgroups", "error", err.Error())
		return nil
	}
	if err := cgroups.Check(node.Hierarchy, node.SystemdDriver); err != nil {
		p.log.Error("cgroups not supported", "step", "cgroups", "hierarchy", node.Hierarchy.String(), "driver", node.Driver())
		return err
	}
	return nil
}

// checkFiles reports what of gVisor is not where containerd's runsc runtime needs it: the binaries in the bin dir
// and a valid runsc.toml.
func (p prove) checkFiles() []string {
	var problems []string
	for _, name := range []string{"runsc", "containerd-shim-runsc-v1"} {
		node := filepath.Join(p.binDir, name)
		st, err := statUnder(p.hostRoot, node)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is missing at %s", name, node))
		case !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0:
			problems = append(problems, fmt.Sprintf("%s at %s is not an executable file (%s)", name, node, st.Mode()))
		}
	}
	data, err := readUnder(p.hostRoot, p.runscConfig)
	if err != nil {
		return append(problems, fmt.Sprintf("runsc.toml is missing at %s", p.runscConfig))
	}
	if _, err := runscconfig.ValidateInstalled(p.runscConfig, data); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// statUnder is os.Stat of a node path seen under hostRoot, following the node's links as the node does (the
// side-by-side layout's runsc.toml is an absolute link into the bin dir).
func statUnder(hostRoot, node string) (os.FileInfo, error) {
	p, err := hostfs.ResolveUnder(hostRoot, node)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

// readUnder is os.ReadFile of a node path seen under hostRoot, links followed as in statUnder.
func readUnder(hostRoot, node string) ([]byte, error) {
	p, err := hostfs.ResolveUnder(hostRoot, node)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}
