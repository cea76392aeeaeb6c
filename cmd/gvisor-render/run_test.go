// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const example = "../../example/containerruntime.yaml"

func runCmd(t *testing.T, version string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, version, &out, &errOut)
	return code, out.String(), errOut.String()
}

var imageLine = regexp.MustCompile(`(?m)^\s*image:\s*(\S+)\s*$`)

// imageRefs returns every distinct image reference in rendered YAML, in order.
func imageRefs(yaml string) []string {
	var refs []string
	for _, m := range imageLine.FindAllStringSubmatch(yaml, -1) {
		// The installation pod's init container (installer) and main container (idle) share one image.
		if !slices.Contains(refs, m[1]) {
			refs = append(refs, m[1])
		}
	}
	return refs
}

// TestExampleSnapshot renders example/containerruntime.yaml as a development build and compares it with
// testdata/example.yaml (`make snapshots` regenerates it).
func TestExampleSnapshot(t *testing.T) {
	out := snapshot(t, example, "example.yaml")
	for _, kind := range []string{"kind: RuntimeClass", "kind: ConfigMap", "kind: DaemonSet", `net-raw = "true"`, "name: gvisor-installation-worker-gvisor"} {
		if !strings.Contains(out, kind) {
			t.Errorf("output lacks %q", kind)
		}
	}
}

// TestTwoPoolsSnapshot: a file with two ContainerRuntimes renders one RuntimeClass and two installations.
func TestTwoPoolsSnapshot(t *testing.T) {
	out := snapshot(t, "../../example/containerruntimes-two-pools.yaml", "example-two-pools.yaml")
	if n := strings.Count(out, "kind: RuntimeClass"); n != 1 {
		t.Errorf("%d RuntimeClasses, want 1", n)
	}
	if n := strings.Count(out, "kind: DaemonSet"); n != 2 {
		t.Errorf("%d DaemonSets, want 2", n)
	}
}

// TestReadinessGateSnapshot: --readiness-gate renders the gate's objects for both charts.
func TestReadinessGateSnapshot(t *testing.T) {
	out := snapshot(t, example, "example-readiness-gate.yaml", "--readiness-gate", "--kubernetes-version", "1.33.4")
	for _, s := range []string{"kind: ValidatingAdmissionPolicy\n", "kind: ValidatingAdmissionPolicyBinding", "kind: ClusterRole\n",
		"kind: ClusterRoleBinding", "kind: ServiceAccount", "- --label-node", "gvisor.runtime.extensions.gardener.cloud/ready: \"true\""} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// TestReadinessGateVersionFloor: like the controller, gvisor-render renders the gate only for shoots on 1.30 or
// later (an unknown version included: none given), says why on stderr, and prints exactly the output without it.
func TestReadinessGateVersionFloor(t *testing.T) {
	t.Setenv(imagevector.OverrideEnv, "")
	_, plain, _ := runCmd(t, "v0.1.0-dev", "-f", example, "--kubernetes-version", "1.29.15")
	for _, version := range []string{"1.29.15", ""} {
		code, out, stderr := runCmd(t, "v0.1.0-dev", "-f", example, "--readiness-gate", "--kubernetes-version", version)
		if code != 0 || out != plain || !strings.Contains(stderr, "readiness gate off: the shoot") {
			t.Errorf("version %q: exit %d, stderr %q; output equals the gate-off output: %v", version, code, stderr, out == plain)
		}
	}
}

// TestUninstallSnapshot: --uninstall renders each pool's DaemonSet in uninstall mode and nothing else; with
// --readiness-gate the installer keeps what it needs to remove its node's label.
func TestUninstallSnapshot(t *testing.T) {
	out := snapshot(t, example, "example-uninstall.yaml", "--uninstall")
	if n := strings.Count(out, "\nkind: "); n != 1 || !strings.Contains(out, "kind: DaemonSet") || !strings.Contains(out, "            - uninstall\n") {
		t.Errorf("want exactly one DaemonSet running uninstall, got %d objects:\n%s", n, out)
	}
	for _, s := range []string{"runsc", "--source", "kind: RuntimeClass", "ConfigMap"} {
		if strings.Contains(out, s) {
			t.Errorf("uninstall output contains %q", s)
		}
	}
	gated := snapshot(t, example, "example-uninstall-readiness-gate.yaml", "--uninstall", "--readiness-gate", "--kubernetes-version", "1.33.4")
	for _, s := range []string{"kind: ServiceAccount", "kind: ClusterRoleBinding", "- --label-node", "name: NODE_NAME"} {
		if !strings.Contains(gated, s) {
			t.Errorf("uninstall output with the gate lacks %q", s)
		}
	}
}

// snapshot renders file as a development build and compares the output with testdata/<golden>.
func snapshot(t *testing.T, file, golden string, flags ...string) string {
	t.Helper()
	t.Setenv(imagevector.OverrideEnv, "")
	code, out, stderr := runCmd(t, "v0.1.0-dev", append([]string{"-f", file}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", golden), out)
	return out
}

func TestVersions(t *testing.T) {
	t.Setenv(imagevector.OverrideEnv, "")
	pinned := pinnedTag(t)
	for version, wantTag := range map[string]string{
		"v9.8.7":           "v9.8.7",
		"v0.1.0-dev":       pinned,
		"v0.0.0-dev":       pinned,
		"v0.1.0-dev-dirty": pinned,
	} {
		t.Run(version, func(t *testing.T) {
			code, out, stderr := runCmd(t, version, "-f", example)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			checkImages(t, out, wantTag)
		})
	}
}

// pinnedTag is the installation image's tag as imagevector/images.yaml pins it (the last release, @ its digest once
// a release pinned one), which every development build renders; read from there so the release step only edits
// images.yaml.
func pinnedTag(t *testing.T) string {
	t.Helper()
	tag, err := imagevector.PinnedTag(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := imagevector.PinnedDigest(imagevector.ImageNameInstallation)
	if err != nil {
		t.Fatal(err)
	}
	if digest != "" {
		tag += "@" + digest
	}
	return tag
}

// checkImages asserts that every rendered image is ours, tagged wantTag (tag[@digest]), with no development marker.
func checkImages(t *testing.T, out, wantTag string) {
	t.Helper()
	refs := imageRefs(out)
	if len(refs) == 0 {
		t.Fatal("no image in the output")
	}
	for _, ref := range refs {
		if err := imagevector.CheckReference(ref); err != nil {
			t.Error(err)
		}
		if !strings.HasPrefix(ref, "ghcr.io/runtime-gvisor/") || !strings.HasSuffix(ref, ":"+wantTag) {
			t.Errorf("image %q, want one of ours tagged %s", ref, wantTag)
		}
	}
}

func TestImageVectorOverwrite(t *testing.T) {
	ow := filepath.Join(t.TempDir(), "images_overwrite.yaml")
	ref := "registry.example.com/gvisor/installation:v1.0.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if err := os.WriteFile(ow, []byte("images:\n- name: runtime-gvisor-installation\n  ref: "+ref+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("flag", func(t *testing.T) {
		t.Setenv(imagevector.OverrideEnv, "")
		code, out, stderr := runCmd(t, "v9.8.7", "-f", example, "--image-vector-overwrite", ow)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if diff := cmp.Diff([]string{ref}, imageRefs(out)); diff != "" {
			t.Errorf("images (-want +got):\n%s", diff)
		}
	})
	t.Run("env", func(t *testing.T) {
		t.Setenv(imagevector.OverrideEnv, ow)
		code, out, stderr := runCmd(t, "v9.8.7", "-f", example)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if diff := cmp.Diff([]string{ref}, imageRefs(out)); diff != "" {
			t.Errorf("images (-want +got):\n%s", diff)
		}
	})
	t.Run("broken overwrite names the file", func(t *testing.T) {
		t.Setenv(imagevector.OverrideEnv, "")
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(bad, []byte("images:\n- name: runtime-gvisor-installation\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCmd(t, "v9.8.7", "-f", example, "--image-vector-overwrite", bad)
		if code != 1 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "images[0].ref/repository") {
			t.Errorf("exit %d, stderr %q: want 1 and the file and field named", code, stderr)
		}
	})
}

func TestBadInput(t *testing.T) {
	t.Setenv(imagevector.OverrideEnv, "")
	exampleYAML, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"misspelt field", strings.Replace(string(exampleYAML), "binaryPath:", "binarypath:", 1), []string{`unknown field "spec.binarypath"`}},
		{"unquoted flag value", strings.Replace(string(exampleYAML), `net-raw: "true"`, "net-raw: true", 1), []string{"providerConfig.configFlags[net-raw]", `quote the value`, "fix the fields"}},
		{"flag outside the allowlist", strings.Replace(string(exampleYAML), `net-raw: "true"`, `net-raw: "true"`+"\n      network: host", 1), []string{"providerConfig.configFlags[network]", "allowed flags:"}},
		{"relative binaryPath", strings.Replace(string(exampleYAML), "binaryPath: /var/bin/containerruntimes", "binaryPath: bin", 1), []string{"spec.binaryPath", "absolute"}},
		{"pool name", strings.Replace(string(exampleYAML), "name: worker-gvisor", "name: Worker_Gvisor", 1), []string{"spec.workerPool.name"}},
		{"other kind", strings.Replace(string(exampleYAML), "kind: ContainerRuntime", "kind: Worker", 1), []string{`kind is "Worker", want "ContainerRuntime"`}},
		{"other type", strings.Replace(string(exampleYAML), "\n  type: gvisor\n", "\n  type: kata\n", 1), []string{`spec.type: Unsupported value: "kata"`}},
		{"empty file", "# nothing\n", []string{"no ContainerRuntime found"}},
		{"not YAML", "a: [", []string{"document 1"}},
		{"two pools with one name", string(exampleYAML) + "---\n" + strings.Replace(string(exampleYAML), "name: gvisor-worker-gvisor", "name: gvisor-other", 1), []string{"spec.workerPool.name: Duplicate value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "cr.yaml")
			if err := os.WriteFile(f, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCmd(t, "v9.8.7", "-f", f)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if out != "" {
				t.Errorf("wrote output despite the error:\n%s", out)
			}
			for _, s := range append(tt.want, f) {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not contain %q", stderr, s)
				}
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for name, args := range map[string][]string{"no -f": nil, "extra argument": {"-f", example, "x"}, "unknown flag": {"--nope"},
		"unknown delivery mode": {"-f", example, "--delivery-mode", "ssh"}, "architecture without pool": {"-f", example, "--architecture", "arm64"}} {
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := runCmd(t, "v9.8.7", args...); code != 2 || !strings.Contains(stderr, "Usage: gvisor-render") {
				t.Errorf("exit %d, stderr %q: want 2 and the usage", code, stderr)
			}
		})
	}
	if code, _, stderr := runCmd(t, "v9.8.7", "-f", "does-not-exist.yaml"); code != 1 || !strings.Contains(stderr, "does-not-exist.yaml does not exist") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
	if code, out, _ := runCmd(t, "v9.8.7", "--version"); code != 0 || out != "v9.8.7\n" {
		t.Errorf("--version: exit %d, output %q", code, out)
	}
}

// TestReproveInterval: --reprove-interval renders the idle container's interval as the controller's flag of the
// same name does (the default: the chart's 5m), and what the controller refuses at start is a usage error here.
func TestReproveInterval(t *testing.T) {
	t.Setenv(imagevector.OverrideEnv, "")
	for flag, want := range map[string]string{"": "- --interval=5m", "90s": "- --interval=1m30s", "1h": "- --interval=1h"} {
		args := []string{"-f", example}
		if flag != "" {
			args = append(args, "--reprove-interval", flag)
		}
		code, out, stderr := runCmd(t, "v9.8.7", args...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--reprove-interval %q: exit %d, output lacks %q: %s", flag, code, want, stderr)
		}
	}
	for _, bad := range []string{"0s", "5s", "10500ms"} {
		code, out, stderr := runCmd(t, "v9.8.7", "-f", example, "--reprove-interval", bad)
		if code != 2 || out != "" || !strings.Contains(stderr, "--reprove-interval") || !strings.Contains(stderr, "at least 10s") {
			t.Errorf("--reprove-interval %s: exit %d, stderr %q; want a usage error naming the flag and its floor", bad, code, stderr)
		}
	}
}
