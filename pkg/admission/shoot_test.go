// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

const (
	pc0 = "spec.provider.workers[0].cri.containerRuntimes[0].providerConfig"
	pc1 = "spec.provider.workers[1].cri.containerRuntimes[0].providerConfig"
	// allowed is v1alpha1's allowlist as its error lists it.
	allowed = "cpu-num-from-quota, debug, debug-log, directfs, file-access, net-raw, nvproxy, nvproxy-allowed-driver-capabilities, overlay2, panic-signal, platform, strace, watchdog-action"
	// debugLogAllowed is v1alpha1's description of debug-log's values.
	debugLogAllowed = "a path under /var/log/runsc/ (ending in / for runsc's own file names), of letters, digits and . _ / + - and the variables %ID%, %CID%, %TIMESTAMP%, %COMMAND%; at most 1024 bytes, each element at most 255, counting each variable as 64"
)

// TestContainerRuntimeType: the admission and the controller handle the same type.
func TestContainerRuntimeType(t *testing.T) {
	if admission.ContainerRuntimeType != render.Type {
		t.Fatalf("admission.ContainerRuntimeType %q != render.Type %q", admission.ContainerRuntimeType, render.Type)
	}
}

// TestValidateShoot: each case is a Shoot's workers and every error message it must get, in order.
func TestValidateShoot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers string
		want    []string
	}{
		{"no gVisor at all", plainWorker("a"), nil},
		{"gVisor without providerConfig", gvisorWorker("a", ""), nil},
		{"valid flags", gvisorWorker("a", "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\nkind: GVisorConfiguration\nconfigFlags:\n  net-raw: \"true\"\n  platform: systrap\n  overlay2: root:memory,size=1g\n"), nil},
		{"misspelt flag in the second worker", plainWorker("a") + gvisorWorker("b", "configFlags:\n  net-raww: \"true\"\n"), []string{
			pc1 + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed,
		}},
		{"unquoted boolean", gvisorWorker("a", "configFlags:\n  debug: yes\n"), []string{
			pc0 + `.configFlags[debug]: Invalid value: true: must be a string: quote the value, for example debug: "true"`,
		}},
		{"bad enum value", gvisorWorker("a", "configFlags:\n  platform: kvm2\n"), []string{
			pc0 + `.configFlags[platform]: Unsupported value: "kvm2": supported values: "kvm", "ptrace", "systrap"`,
		}},
		{"bad checked value", gvisorWorker("a", "configFlags:\n  panic-signal: \"40\"\n  debug-log: relative/path\n"), []string{
			pc0 + `.configFlags[debug-log]: Invalid value: "relative/path": must be an absolute path of letters, digits and . _ / % + -; allowed: ` + debugLogAllowed,
			pc0 + `.configFlags[panic-signal]: Invalid value: "40": must be between -1 and 31; allowed: an integer from -1 to 31`,
		}},
		{"every kind of error at once", gvisorWorker("a", "apiVersion: foo/v1\nkind: Bar\nconfigFlag: {}\ntestImageTag: \"-x\"\nconfigFlags:\n  debug: yes\n  net-raww: \"true\"\n"), []string{
			pc0 + `.configFlag: Forbidden: unknown field "configFlag"; the fields of a GVisorConfiguration are apiVersion, kind, configFlags, sandboxMetrics, testImageTag`,
			pc0 + `.apiVersion: Unsupported value: "foo/v1": supported values: "gvisor.runtime.extensions.config.gardener.cloud/v1alpha1"`,
			pc0 + `.kind: Unsupported value: "Bar": supported values: "GVisorConfiguration"`,
			pc0 + `.configFlags[debug]: Invalid value: true: must be a string: quote the value, for example debug: "true"`,
			pc0 + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed,
			pc0 + `.testImageTag: Invalid value: "-x": must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)`,
		}},
		{"errors in two workers", gvisorWorker("a", "configFlags:\n  strace: \"1\"\n") + gvisorWorker("b", "configFlags:\n  file-access: none\n"), []string{
			pc0 + `.configFlags[strace]: Unsupported value: "1": supported values: "false", "true"`,
			pc1 + `.configFlags[file-access]: Unsupported value: "none": supported values: "exclusive", "shared"`,
		}},
		{"not an object", gvisorWorker("a", "[1, 2]\n"), []string{
			pc0 + `: Invalid value: "(undecodable)": must be a GVisorConfiguration object with fields apiVersion, kind, configFlags, sandboxMetrics, testImageTag: json: cannot unmarshal array into Go value of type v1alpha1.wire`,
		}},
		{"a set runsc refuses", gvisorWorker("a", "configFlags:\n  file-access: shared\n"), []string{
			pc0 + `.configFlags[file-access]: Invalid value: "shared": runsc refuses shared file access with an overlay on the root filesystem, and its default overlay2 is root:self: set overlay2: "none" too, or leave file-access out`,
		}},
		{"unknown flags in two workers: the allowlist once", gvisorWorker("a", "configFlags:\n  net-raww: \"true\"\n") + gvisorWorker("b", "configFlags:\n  debugg: \"true\"\n"), []string{
			pc0 + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed,
			pc1 + `.configFlags[debugg]: Invalid value: "true": unknown or not allowed runsc flag "debugg"; the allowed flags are listed at ` + pc0 + `.configFlags[net-raww]`,
		}},
		{"CRI is not containerd", "- name: a\n  minimum: 1\n  maximum: 2\n  machine:\n    type: local\n  cri:\n    name: docker\n    containerRuntimes:\n    - type: gvisor\n", []string{
			`spec.provider.workers[0].cri.name: Invalid value: "docker": gVisor runs only with containerd: set cri.name to "containerd" or remove the gvisor container runtime from worker "a"`,
		}},
		{"second container runtime entry", "- name: a\n  minimum: 1\n  maximum: 2\n  machine:\n    type: local\n  cri:\n    name: containerd\n    containerRuntimes:\n    - type: kata\n      providerConfig: {anything: goes}\n    - type: gvisor\n      providerConfig:\n        configFlags:\n          directfs: \"no\"\n", []string{
			`spec.provider.workers[0].cri.containerRuntimes[1].providerConfig.configFlags[directfs]: Unsupported value: "no": supported values: "false", "true"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := messages(admission.ValidateShoot(shoot(t, tc.workers)))
			if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateShootBounded: a Shoot with many bad workers gets v1alpha1.MaxErrors errors and one counting the
// rest, whatever its size.
func TestValidateShootBounded(t *testing.T) {
	var workers strings.Builder
	for i := range 300 {
		workers.WriteString(gvisorWorker(fmt.Sprintf("w%d", i), "configFlags:\n  net-raww: \"true\"\n  platform: kvm2\n"))
	}
	got := messages(admission.ValidateShoot(shoot(t, workers.String())))
	if len(got) != v1alpha1.MaxErrors+1 {
		t.Fatalf("%d errors, want %d:\n%s", len(got), v1alpha1.MaxErrors+1, strings.Join(got, "\n"))
	}
	if want := "spec.provider.workers: Forbidden: 590 more errors not listed (only the first 10 are): fix these and apply again"; got[len(got)-1] != want {
		t.Errorf("last error %q, want %q", got[len(got)-1], want)
	}
	if n := strings.Count(strings.Join(got, "\n"), allowed); n != 1 {
		t.Errorf("the allowlist is listed %d times, want once", n)
	}
}

// cmpEmpty treats nil and empty lists alike.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})
