// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gvisor-gpu-check judges a node's NVIDIA driver with the nvproxy of the runsc this extension ships
// (package preflight):
//
//	gvisor-gpu-check preflight [--host-root DIR] [--driver-version VERSION]
//	gvisor-gpu-check probe [--control DEVICE]
//
// It prints one JSON object (preflight.Verdict) and exits 0 whatever the verdict; a non-zero exit means it could
// not judge (a usage error). --driver-version judges a version instead of asking the node's driver (a check
// without a GPU, or before a driver upgrade).
//
// probe asks the driver for its version and its GPUs through /dev/nvidiactl (package probe): the GPU proof runs it
// inside a gVisor sandbox with the node's GPU devices, where nvproxy forwards the ioctls.
//
// It is its own Go module: it links runsc's nvproxy package (the driver ABI table and the version query), which
// needs the exact dependency versions of the pinned gVisor module.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-gpu-check/preflight"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-gpu-check/probe"
)

// version is the release this binary belongs to, stamped at build time (-X main.version=..., pkg/images).
var version = "v0.0.0-dev"

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gvisor-gpu-check:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		_, err := fmt.Fprintln(out, version)
		return err
	}
	if len(args) > 0 && args[0] == "probe" {
		return runProbe(args[1:], out)
	}
	if len(args) == 0 || args[0] != "preflight" {
		return fmt.Errorf("usage: gvisor-gpu-check preflight [--host-root DIR] [--driver-version VERSION] | probe [--control DEVICE] | --version")
	}
	fs := flag.NewFlagSet("preflight", flag.ContinueOnError)
	hostRoot := fs.String("host-root", "/", "the node's root file system (the installation pod mounts it at /host)")
	given := fs.String("driver-version", "", "judge this driver version instead of the node's")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	var src preflight.DriverSource = preflight.Host{Root: *hostRoot}
	if *given != "" {
		src = preflight.Given(*given)
	}
	v := preflight.Check(src, gvisorVersion())
	enc := json.NewEncoder(out)
	return enc.Encode(v)
}

// runProbe is `gvisor-gpu-check probe`: the GPU proof's program, run inside a gVisor sandbox with the node's GPU
// devices (package probe). It prints the driver's answer as one JSON object; a driver that does not answer is an
// error (exit 2 with the reason on stderr).
func runProbe(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	ctl := fs.String("control", probe.ControlDevice, "the NVIDIA driver's control device")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	r, err := probe.Ask(*ctl)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(r)
}

// gvisorVersion is the pinned gVisor module's version from the build info: the runsc whose nvproxy judged.
func gvisorVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "gvisor.dev/gvisor" {
				return d.Version
			}
		}
	}
	return "unknown"
}
