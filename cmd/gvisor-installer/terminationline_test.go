package main

import (
	"errors"
	"strings"
	"testing"
)

// TestTerminationLine: the termination message starts with the stable reason when the run reached a verdict
// (what the healthcheck controller quotes per node), stays one line and is bounded.
func TestTerminationLine(t *testing.T) {
	tooOld := "containerd 1.6.20 is not supported (minimum containerd 1.7.0)"
	if got := terminationLine("install", errors.New("refusing containerd 1.6.20:\nlong explanation"), tooOld); !strings.HasPrefix(got, tooOld+"; gvisor-installer ") ||
		!strings.HasSuffix(got, " install failed") || strings.Contains(got, "\n") {
		t.Errorf("with a verdict: %q", got)
	}
	if got := terminationLine("uninstall", errors.New("lock\ntimeout"), ""); !strings.HasPrefix(got, "uninstall failed (") || !strings.HasSuffix(got, "): lock timeout") {
		t.Errorf("without a verdict: %q", got)
	}
	if got := terminationLine("install", errors.New(strings.Repeat("x", 5000)), ""); len(got) != maxTerminationMessage || !strings.HasSuffix(got, "...") {
		t.Errorf("not bounded: %d bytes", len(got))
	}
}
