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
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/cgroups"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdversion"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// runProve is `gvisor-installer prove`, the sandbox proof of the OperatingSystemConfig delivery mode: the oneshot
// unit gvisor-sandbox-proof.service runs it on the node after gardener-node-agent has put runsc, the shim and
// runsc.toml there (imageRef and inline files) and registered runsc in containerd's config (and restarted it).
// It changes nothing on the node: it waits (bounded by --registration-timeout) until containerd's CRI lists the
// runsc runtime, reads containerd's version over CRI (refusing one below the minimum, as install does), checks
// the files, starts one real sandbox with the runsc handler through the CRI (pkg/installer/sandbox, the same proof
// install runs) and removes it.
//
// Why it waits: gardener-node-agent (v1.149.3, executeUnitCommands) restarts the changed units, this one
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
	gpuVerdict := f.nodeGPU(ctx, log)
	verdict, err := p.run(ctx)
	if err == nil && gpuVerdict != nil && gpuVerdict.Status == gpu.Supported {
		// The GPU proof, as install's: the node's gvisor-gpu-check in a gVisor sandbox with the NVIDIA devices.
		v := gpu.ProveNode(ctx, gpu.CRI{Socket: p.prover.Socket, Binary: f.gpuBinary, CgroupParent: f.cgroupParent, Creator: versionString() + " prove"},
			f.hostRoot, *gpuVerdict)
		gpuVerdict = &v
	}
	if g := installer.GPUReport(gpuVerdict); g != nil {
		verdict += "; " + g.String()
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

// nodeGPU sets nvproxy in runsc.toml for this node's driver (--gpu-preflight-binary, installer.NodeGPU) and returns
// the pre-flight's verdict (nil without the flag or NVIDIA devices). It never fails the proof: every gVisor pod but a
// GPU pod runs on a node whose driver the shipped runsc does not support, and prove's line says what to fix.
func (f *proveFlags) nodeGPU(ctx context.Context, log *slog.Logger) *gpu.Verdict {
	if f.gpuBinary == "" {
		return nil
	}
	v, err := installer.NodeGPU{
		HostRoot: f.hostRoot, RunscConfig: f.runscConfig, Logger: log,
		Preflight: gpu.Exec{Binary: filepath.Join(f.hostRoot, f.gpuBinary), HostRoot: f.hostRoot},
	}.Apply(ctx)
	if err != nil {
		log.Warn("runsc.toml not set for this node's GPUs", "step", "gpu-node", "error", err.Error())
	}
	return v
}

// proveFlags are prove's flags.
type proveFlags struct {
	hostRoot, binDir, runscConfig, cgroupParent, termination string
	gpuBinary                                                string
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
	fs.StringVar(&f.gpuBinary, "gpu-preflight-binary", "", "node path of gvisor-gpu-check: before the proof, judge this node's NVIDIA driver (on a node with "+
		gpu.ControlDevice+") and turn runsc's nvproxy on in --runsc-config exactly for a supported driver (the OperatingSystemConfig mode: "+
		"node-agent writes the pool's runsc.toml, the same on every node); a runsc.toml that is a link (the DaemonSet mode's release layout) is left alone")
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
	missing := p.checkFiles()
	proof, err := p.prover.Prove(ctx)
	if err != nil && registered == nil && ctx.Err() == nil {
		// runsc was registered: containerd may have been restarted under the proof. Wait and try once more.
		p.log.Warn("gVisor sandbox did not start; trying once more", "step", "prove-sandbox", "error", err.Error())
		if err := p.registered(ctx); err != nil {
			p.log.Warn("containerd does not list the runsc runtime; proving anyway", "step", "wait-registration", "error", err.Error())
		}
		missing = p.checkFiles()
		proof, err = p.prover.Prove(ctx)
	}
	if err != nil {
		why := err.Error()
		if len(missing) > 0 {
			// What node-agent should have put there comes first: containerd's own error follows.
			why = strings.Join(missing, "; ") + "; " + why
		}
		p.log.Error("gVisor sandbox did not start", "step", "prove-sandbox", "containerd", on, "error", why)
		verdict = "gVisor sandbox did not start" + on + ": " + why
		return verdict, errors.New(verdict)
	}
	if len(missing) > 0 {
		p.log.Warn("the gVisor sandbox started although files are missing: runsc runs from elsewhere", "problems", strings.Join(missing, "; "))
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
