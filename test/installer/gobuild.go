// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	goBinMu sync.Mutex
	goBins  = map[string][]byte{}
)

// GoBinary returns a real static Linux executable for goarch, built by the Go toolchain from a tiny program
// (CGO_ENABLED=0, cross-compiled: no emulation), as a release of the wrong architecture would carry it. Builds
// are cached per test process.
func GoBinary(t testing.TB, goarch string) []byte {
	t.Helper()
	return GoProgram(t, goarch, "package main\n\nfunc main() { println(\"runsc stand-in\") }\n")
}

// GoProgram is GoBinary for the program src (one main.go without imports beyond the standard library).
func GoProgram(t testing.TB, goarch, src string) []byte {
	t.Helper()
	goBinMu.Lock()
	defer goBinMu.Unlock()
	key := goarch + "\x00" + src
	if b, ok := goBins[key]; ok {
		return b
	}
	dir, err := os.MkdirTemp("", "gobin-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	main := filepath.Join(dir, "main.go")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bin")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, main)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOFLAGS=", "GO111MODULE=off")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for linux/%s: %v\n%s", goarch, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	goBins[key] = b
	return b
}

// BrokenRunsc is the source of a runsc that passes every checksum but cannot start a sandbox on any node (a
// kernel it does not support, a build broken for the platform): it answers --version and fails everything else.
// Build it with GoProgram; upgrade and rollback tests put it in a release over a working one.
const BrokenRunsc = `package main

import (
	"fmt"
	"os"
)

func main() {
	for _, a := range os.Args[1:] {
		if a == "--version" || a == "-version" {
			fmt.Println("runsc version broken-test-release")
			return
		}
	}
	fmt.Fprintln(os.Stderr, "runsc: this build cannot start sandboxes (test release standing in for a runsc the node rejects)")
	os.Exit(1)
}
`

// MetricServer builds cmd/gvisor-metric-server (its own module) as the image build does (static, stripped) and
// returns the binary's path.
func MetricServer(t testing.TB) string { return ownModule(t, "gvisor-metric-server") }

// GPUCheck builds cmd/gvisor-gpu-check (its own module) as the image build does and returns the binary's path.
func GPUCheck(t testing.TB) string { return ownModule(t, "gvisor-gpu-check") }

// ownModule builds cmd/<command>, a module of its own, static and stripped, and returns the binary's path.
func ownModule(t testing.TB, command string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(t.TempDir(), command)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..", "cmd", command)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", command, err, b)
	}
	return out
}

// Installer builds cmd/gvisor-installer as the image build does (static, stripped) and returns the binary's path.
func Installer(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(t.TempDir(), "gvisor-installer")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./cmd/gvisor-installer")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gvisor-installer: %v\n%s", err, b)
	}
	return out
}
