// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// terminalCodes are the serial console's carriage returns and colour escapes (systemd's "[  OK  ]"), dropped so
// that the console reads as plain lines in a test's log.
var terminalCodes = regexp.MustCompile(`\r|\x1b\[[0-9;]*[A-Za-z]`)

// Console returns the last lines the guest wrote to its serial console, over all of the node's boots: the
// initramfs's steps, the units systemd started, the kernel's warnings, each boot after a line that says when QEMU
// started it.
func (n *Node) Console(lines int) string {
	data, err := os.ReadFile(n.console)
	if err != nil {
		return "(no console: " + err.Error() + ")"
	}
	text := strings.TrimRight(terminalCodes.ReplaceAllString(string(data), ""), "\n")
	if text == "" {
		return "(the guest wrote nothing to its console)"
	}
	all := strings.Split(text, "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// markConsole appends the line that opens the next boot's part of the console (QEMU is not running: only the
// harness writes to the file then).
func (n *Node) markConsole() error {
	f, err := os.OpenFile(n.console, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("VM node console: %w", err)
	}
	_, err = fmt.Fprintf(f, "--- [vmnode] boot %d: QEMU started at %s ---\n", n.boots+1, time.Now().UTC().Format(time.TimeOnly))
	if err == nil {
		n.consoleMark, err = f.Seek(0, io.SeekEnd)
	}
	return errors.Join(err, f.Close())
}

// errSilentGuest is a started QEMU whose guest wrote nothing to its console (silentBootLimit).
var errSilentGuest = errors.New("the guest wrote nothing to its console")

// bootWrote tells whether the guest wrote to its console since the last markConsole.
func (n *Node) bootWrote() bool {
	fi, err := os.Stat(n.console)
	return err == nil && fi.Size() > n.consoleMark
}
