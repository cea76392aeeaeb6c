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
	"os/exec"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// runDeactivate is `gvisor-installer deactivate`, the OperatingSystemConfig mode's removal of the release layout
// (installer.ActionDeactivate): the links, the current release, the record, every release no running sandbox uses
// and what node-agent staged; containerd's configuration is node-agent's (its remove entry unregisters runsc).
//
// It is the ExecStop of gvisor-release.service, which gardener-node-agent stops when gVisor leaves the pool's
// OperatingSystemConfig. systemd also stops the unit when the node shuts down, and node-agent restarts it when its
// files change; neither may remove gVisor. What tells them apart: node-agent disables a unit that left the OSC
// before it stops it (removeDeletedUnits: Disable, Stop, then the unit file goes), while at a shutdown or
// a restart the unit is still enabled. So with --unless-enabled=UNIT deactivate does nothing while UNIT is enabled,
// or when systemctl cannot say (the safe side: leftovers, never a removed release under a node that keeps gVisor).
//
// Exit 0: removed, or nothing to do; 1: failed (the summary says what was removed before); 2: usage error.
func runDeactivate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := parseDeactivate(args, stderr)
	if f == nil {
		return code
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("version", version.Version)
	if f.unlessEnabled != "" {
		state, err := unitFileState(ctx, f.unlessEnabled)
		if err != nil || state != "disabled" {
			why := "state " + state
			if err != nil {
				why = err.Error()
			}
			log.Info("the unit is not disabled (a shutdown or a restart, not gVisor leaving the node): the release layout stays", "step", "deactivate",
				"unit", f.unlessEnabled, "state", why)
			fmt.Fprintln(stdout, "deactivate: unchanged; "+f.unlessEnabled+" is not disabled ("+why+")")
			return 0
		}
	}
	res, err := installer.Deactivate(ctx, installer.Options{HostRoot: f.hostRoot, BinDir: f.binDir, Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, res.FailedSummary())
		fmt.Fprintln(stderr, "deactivate:", err)
		return 1
	}
	fmt.Fprintln(stdout, res.Summary())
	return 0
}

// deactivateFlags are deactivate's flags.
type deactivateFlags struct {
	hostRoot, binDir, unlessEnabled string
}

func parseDeactivate(args []string, stderr io.Writer) (*deactivateFlags, int) {
	f := &deactivateFlags{}
	fs := flag.NewFlagSet("deactivate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.hostRoot, "host-root", "/", "where the node's / is mounted")
	fs.StringVar(&f.binDir, "bin-dir", installer.DefaultBinDir, "node path of the bin dir (the ContainerRuntime's binaryPath)")
	fs.StringVar(&f.unlessEnabled, "unless-enabled", "", "do nothing unless this systemd unit is disabled (`systemctl is-enabled`; needs --host-root=/): "+
		"the unit whose ExecStop runs deactivate is disabled by gardener-node-agent only when it leaves the OperatingSystemConfig")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "deactivate: unexpected arguments %v\n", fs.Args())
		return nil, 2
	}
	if f.unlessEnabled != "" && f.hostRoot != "/" {
		fmt.Fprintln(stderr, "deactivate: --unless-enabled asks this machine's systemd: it needs --host-root=/")
		return nil, 2
	}
	return f, 0
}

// unitFileStateTimeout bounds systemctl's answer; systemd answers is-enabled from its unit files at once, also while
// it runs the stop job that runs deactivate.
const unitFileStateTimeout = 10 * time.Second

// unitFileState is `systemctl is-enabled unit`'s answer ("enabled", "disabled", ...). systemctl exits non-zero for
// every state but enabled ones, so its output, not its status, is the answer.
func unitFileState(ctx context.Context, unit string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, unitFileStateTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "is-enabled", unit).Output()
	state := strings.TrimSpace(string(out))
	if state == "" {
		return "", fmt.Errorf("systemctl is-enabled %s: no answer: %v", unit, err)
	}
	return state, nil
}
