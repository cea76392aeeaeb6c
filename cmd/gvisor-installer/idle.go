// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
)

// idleBinaryName is the minimal idle program (cmd/gvisor-idle) that the installation image carries next to
// gvisor-installer.
const idleBinaryName = "gvisor-idle"

// idle is the idle phase of --idle, after the ready file is written: the pod must stay up (and Ready) on every node
// of the pool for its whole life, doing nothing. This process holds client-go and the rest, initialised at package
// init, for that, so it replaces itself (execve, same PID, same stdout/stderr, no open files: Go opens everything
// close-on-exec) with gvisor-idle, which holds a fraction of it (BENCHMARKS.md, "installation pod at idle") and
// exits 0 on SIGTERM/SIGINT as this process would. When gvisor-idle is missing (an older image) or cannot be executed, it waits in-process
// as before and says so in the log.
//
// A SIGTERM that arrives in the microseconds between the ctx check and the exec is lost with this process's signal
// handlers; the kubelet then kills the pod at the end of its grace period instead.
func idle(ctx context.Context, log *slog.Logger, binary string) int {
	if ctx.Err() != nil {
		return 0 // SIGTERM/SIGINT came during the run: done, nothing to idle for
	}
	path, err := idleBinaryPath(binary)
	if err == nil {
		log.Info("Idling in "+path, "step", "idle")
		// Exec returns only if it failed; on success this process image is gone.
		err = fmt.Errorf("exec %s: %w", path, syscall.Exec(path, []string{path}, os.Environ()))
	}
	log.Warn("Idling in-process, which costs about 15 MB more memory on this node: "+idleBinaryName+" is not usable; "+
		"use an installation image with /"+idleBinaryName+" or pass --idle-binary", "step", "idle", "error", err.Error())
	<-ctx.Done()
	return 0
}

// idleBinaryPath returns the idle program to exec: binary if set, else gvisor-idle next to this executable.
func idleBinaryPath(binary string) (string, error) {
	if binary == "" {
		self, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding %s next to this executable: %w", idleBinaryName, err)
		}
		binary = filepath.Join(filepath.Dir(self), idleBinaryName)
	}
	st, err := os.Stat(binary)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%s does not exist", binary)
	case err != nil:
		return "", err
	case !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file (mode %s)", binary, st.Mode())
	}
	return binary, nil
}
