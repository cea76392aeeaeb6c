// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

const (
	// panicLog is the file the runsc shim names in --panic-log (<log directory>/gvisor_panic.log); `runsc boot`
	// makes it its stderr, so a sandbox that dies at boot leaves its last words there.
	panicLog = "gvisor_panic.log"
	// readLimit bounds what is read of each log file. The head, not the tail: the decisive line comes first (Go
	// writes a crash's header before the traceback of every goroutine, runsc's Fatalf before the lines of the
	// helpers that die with it), and a traceback may be longer than any bound.
	readLimit = 16 << 10
	// lineLimit bounds the line quoted in the error (the termination message has its own bound, nodecontract.BoundLine).
	lineLimit = 300
)

// errHung marks a sandbox start the proof's deadline ended: runsc neither started the sandbox nor failed.
var errHung = errors.New("the sandbox did not start")

// withReason appends runsc's own reason, read from the proof's log directory, to a failed proof's error:
// containerd's CRI error for a sandbox whose `runsc boot` died says only "... waiting for sandbox to start: EOF".
// A directory without such a line (containerd failed before runsc ran, or runsc's reason is already in
// containerd's error) leaves err as it is.
func withReason(err error, dir string) error {
	line := runscReason(dir)
	if line == "" && errors.Is(err, errHung) {
		return fmt.Errorf("%w; runsc logged no reason: its sandbox neither started nor died (a platform that hangs, e.g. kvm in a nested VM, or a node out of CPU)", err)
	}
	if line == "" || strings.Contains(err.Error(), line) {
		return err
	}
	return fmt.Errorf("%w; runsc: %s", err, line)
}

// runscReason is the decisive line of the first log file in dir that has one: the panic log first, then
// whatever else runsc and its shim left there (the user log gvisor.log), by name.
func runscReason(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == panicLog:
			return -1
		case b == panicLog:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		if line := decisiveLine(readHead(filepath.Join(dir, name))); line != "" {
			return line
		}
	}
	return ""
}

// readHead reads at most readLimit bytes of the file; a file that cannot be read has nothing to say.
func readHead(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, readLimit))
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return string(b)
}

// decisiveLine picks the line that says why runsc died:
//   - a Go crash (the sentry's panic, a runtime fatal error): its header ("panic: ...", "fatal error: ...") and
//     the first gVisor function of the crashing goroutine, which names the subsystem (e.g. the KVM platform);
//   - otherwise the first message line, without its log format (JSON "msg"/"log", glog or logfmt prefixes),
//     skipping traceback lines and the echo of the boot process's death (below).
func decisiveLine(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return bound(strings.TrimSpace(l) + crashSite(lines[i+1:]))
		}
	}
	for _, l := range lines {
		if msg := message(l); msg != "" && !traceback(l) && !echo(msg) {
			return bound(msg)
		}
	}
	return ""
}

// crashSite is " (in <function>)" for the first frame of the traceback in lines outside Go's runtime, or "".
func crashSite(lines []string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "goroutine ") && !strings.HasSuffix(l, "[running]:") {
			return "" // past the crashing goroutine
		}
		if f := frame.FindStringSubmatch(l); f != nil && !strings.HasPrefix(f[1], "runtime.") {
			return " (in " + strings.TrimPrefix(f[1], "gvisor.dev/gvisor/") + ")"
		}
	}
	return ""
}

var (
	// frame is a traceback's function line, e.g. "gvisor.dev/gvisor/pkg/sentry/platform/kvm.(*machine).mapMemorySlot(0x1ee7, ...)".
	frame = regexp.MustCompile(`^([\w./\-]+\.(?:\(\*?\w+\)\.)?[\w.]+)\(.*\)$`)
	// glogPrefix is gVisor's text log format, e.g. "W1202 00:22:52.123456    1234 boot.go:42] ".
	glogPrefix = regexp.MustCompile(`^[DIWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]*\] `)
	// logfmtMsg is a logrus line's message, e.g. `time="..." level=error msg="..."`.
	logfmtMsg = regexp.MustCompile(`\bmsg="((?:[^"\\]|\\.)*)"`)
)

// traceback reports a line of a goroutine traceback.
func traceback(l string) bool {
	return strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "goroutine ") || strings.HasPrefix(l, "created by ") ||
		frame.MatchString(l)
}

// echo reports the line runsc boot's unmount helper writes when the boot process it waits for is gone: it says
// only that boot died, after boot's own reason ("unable to read from the sync descriptor: 0, error EOF").
func echo(msg string) bool {
	return strings.HasPrefix(msg, "unable to read from the sync descriptor")
}

// message is the line's text without its log format; "" for a line without text.
func message(l string) string {
	l = strings.TrimSpace(l)
	if strings.HasPrefix(l, "{") {
		var j struct{ Msg, Log string }
		if json.Unmarshal([]byte(l), &j) == nil {
			l = strings.TrimSpace(j.Msg + j.Log)
		}
	}
	if m := logfmtMsg.FindStringSubmatch(l); m != nil {
		l = strings.ReplaceAll(m[1], `\"`, `"`)
	}
	l = glogPrefix.ReplaceAllString(l, "")
	return strings.TrimSpace(strings.TrimPrefix(l, "FATAL ERROR: "))
}

// bound cuts a line to lineLimit bytes, at a character boundary.
func bound(l string) string {
	if len(l) <= lineLimit {
		return l
	}
	i := lineLimit
	for i > 0 && !utf8.RuneStart(l[i]) {
		i--
	}
	return l[:i] + "..."
}
