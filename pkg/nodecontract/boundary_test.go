// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// modulePath is this module's import path.
const modulePath = "github.com/runtime-gvisor/gardener-extension-runtime-gvisor"

// seedSide are the packages that run on the seed or in Gardener itself: the renderer Gardener imports, runsc.toml's
// owner, the controller, the webhooks and their binaries.
var seedSide = []string{
	"./pkg/render/...", "./pkg/runscconfig/...", "./pkg/controller/...", "./pkg/webhook/...", "./pkg/admission/...",
	"./cmd/gardener-extension-runtime-gvisor/...", "./cmd/gardener-extension-admission-runtime-gvisor/...",
	"./cmd/gvisor-render/...",
}

// nodeOnly are import path prefixes no seed-side package may compile: the node installer's code, and a CRI or
// containerd client (what talks to a node's containerd lives on the node).
var nodeOnly = []string{modulePath + "/pkg/installer", "k8s.io/cri-api/", "github.com/containerd/"}

// TestSeedSideCompilesNoNodeCode: the seed side meets the node side only through this package (and pkg/nodelabel,
// pkg/runscconfig, pkg/refusal, which import no node code either).
func TestSeedSideCompilesNoNodeCode(t *testing.T) {
	for _, dep := range deps(t, seedSide...) {
		for _, prefix := range nodeOnly {
			if dep == prefix || strings.HasPrefix(dep, strings.TrimSuffix(prefix, "/")+"/") {
				t.Errorf("a seed-side package compiles %s (go list -deps %s names it): move what it needs into pkg/nodecontract", dep, strings.Join(seedSide, " "))
			}
		}
	}
}

// TestRendererCompilesNoGRPC: Gardener imports pkg/render; it compiles no gRPC at all. (The controller's binary
// links gRPC through Gardener's extension library's tracing, which is not ours to remove.)
func TestRendererCompilesNoGRPC(t *testing.T) {
	for _, dep := range deps(t, "./pkg/render/...") {
		if strings.HasPrefix(dep, "google.golang.org/grpc") {
			t.Errorf("pkg/render compiles %s", dep)
		}
	}
}

// TestContractImportsOnlyTheStandardLibrary: both sides import this package, so it imports neither.
func TestContractImportsOnlyTheStandardLibrary(t *testing.T) {
	out := goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./pkg/nodecontract")
	for _, dep := range out {
		if dep != modulePath+"/pkg/nodecontract" {
			t.Errorf("pkg/nodecontract imports %s; it may import only the standard library", dep)
		}
	}
}

// deps lists the packages' transitive imports.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	return goList(t, append([]string{"-deps"}, pkgs...)...)
}

// goList runs `go list args...` at the module's root and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.Fields(string(out))
}
