// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Path rules for debug-log, the one path-valued flag of the allowlist (overlay2's dir= medium is not offered, see
// checkOverlay2). runsc opens the debug log at every command it runs on the node (create, boot, gofer, state,
// delete, ... and a hand-run `runsc list`, whatever debug says: runsc/cli.Run opens it whenever debug-log is
// set), as root, creating the missing directories and appending to the file. A path runsc cannot open makes every
// one of those commands exit 128, so every gVisor pod of the pool fails. These rules keep what we accept openable
// on any node.
const (
	// DebugLogDir is the node directory debug logs may go to: the directory of DefaultDebugLog, the one the field's
	// extension used. Anywhere else runsc, as root, would create and append to files the node needs
	// (under /etc, /var/lib/kubelet, ...).
	DebugLogDir = "/var/log/runsc/"
	// MaxPathElement is the longest path element (file or directory name) Linux opens (NAME_MAX, for ext4, xfs,
	// tmpfs and overlayfs alike): runsc fails with "file name too long" beyond it.
	MaxPathElement = 255
	// MaxDebugLogPath caps the whole debug-log path (Linux's PATH_MAX is 4096): far beyond any useful log path,
	// and it bounds what a shoot owner can make every runsc command of the pool carry.
	MaxDebugLogPath = 1024
	// debugLogVariableLength is what each variable counts for: the longest value runsc substitutes, a containerd
	// sandbox or container ID (64 hexadecimal digits; %TIMESTAMP% is 22 characters, %COMMAND% a runsc command
	// name, at most 22).
	debugLogVariableLength = 64
	// debugLogDefaultName is what runsc appends to a debug-log that ends in "/" (runsc/specutils.OpenDebugLogFile).
	debugLogDefaultName = "runsc.log.%TIMESTAMP%.%COMMAND%.txt"
)

// DebugLogVariables are the variables runsc substitutes in debug-log (runsc/specutils.LogFileOpts.Build) that a
// shoot owner may use: %ID% (the sandbox ID), %CID% (the container ID), %TIMESTAMP% (the command's start time) and
// %COMMAND% (create, boot, gofer, ...). runsc's %TEST% (test runs only) is not offered.
var DebugLogVariables = []string{"%ID%", "%CID%", "%TIMESTAMP%", "%COMMAND%"}

// safePath restricts host paths to characters that need no quoting in TOML or shell and cannot smuggle options.
var safePath = regexp.MustCompile(`^/[A-Za-z0-9._/%+-]*$`)

// debugLogAllowed is the description of debug-log's values in errors and AllowedValues.
var debugLogAllowed = fmt.Sprintf("a path under %s (ending in / for runsc's own file names), "+
	"of letters, digits and . _ / + - and the variables %s; at most %d bytes, each element at most %d, "+
	"counting each variable as %d", DebugLogDir, strings.Join(DebugLogVariables, ", "), MaxDebugLogPath,
	MaxPathElement, debugLogVariableLength)

// checkDebugLog applies the path rules above to a debug-log value.
func checkDebugLog(v string) error {
	if !safePath.MatchString(v) {
		return fmt.Errorf("must be an absolute path of letters, digits and . _ / %% + -")
	}
	if !strings.HasPrefix(v, DebugLogDir) {
		return fmt.Errorf("must be under %s, for example %s%%ID%%/ (runsc writes it as root on every node of the pool)", DebugLogDir, DebugLogDir)
	}
	if trimmed, dir := strings.CutSuffix(v, "/"); path.Clean(trimmed) != trimmed {
		clean := path.Clean(trimmed)
		if dir {
			clean += "/"
		}
		return fmt.Errorf("must be clean (no //, . or .. elements), for example %q", clean)
	}
	if err := checkVariables(v); err != nil {
		return err
	}
	expanded := expandWorstCase(v)
	if len(expanded) > MaxDebugLogPath {
		return fmt.Errorf("is %d bytes long with each variable counted as %d; at most %d", len(expanded), debugLogVariableLength, MaxDebugLogPath)
	}
	for _, elem := range strings.Split(expanded, "/") {
		if len(elem) > MaxPathElement {
			return fmt.Errorf("has an element of %d bytes with each variable counted as %d (a sandbox ID); Linux opens at most %d (\"file name too long\")",
				len(elem), debugLogVariableLength, MaxPathElement)
		}
	}
	return nil
}

// checkVariables refuses a "%" that does not start one of DebugLogVariables: runsc would keep it literally, and
// the length rules count the variables.
func checkVariables(v string) error {
	rest := v
	for {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			return nil
		}
		rest = rest[i:]
		known := false
		for _, name := range DebugLogVariables {
			if strings.HasPrefix(rest, name) {
				rest, known = rest[len(name):], true
				break
			}
		}
		if !known {
			return fmt.Errorf("uses %% outside the variables %s", strings.Join(DebugLogVariables, ", "))
		}
	}
}

// expandWorstCase is the path runsc opens at its longest: runsc's default file name appended to a directory, and
// every variable replaced by debugLogVariableLength bytes.
func expandWorstCase(v string) string {
	if strings.HasSuffix(v, "/") {
		v += debugLogDefaultName
	}
	long := strings.Repeat("x", debugLogVariableLength)
	for _, name := range DebugLogVariables {
		v = strings.ReplaceAll(v, name, long)
	}
	return v
}
