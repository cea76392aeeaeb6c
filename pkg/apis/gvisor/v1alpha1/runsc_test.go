// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// TestRunscModuleIsTheNodesRelease: the runsc code that judges the flags is the release the nodes run, so a
// GVISOR_VERSION bump cannot leave the validator on an older runsc's rules.
func TestRunscModuleIsTheNodesRelease(t *testing.T) {
	pinned, err := os.ReadFile("../../../../GVISOR_VERSION")
	if err != nil {
		t.Fatal(err)
	}
	// The validator, and the node binaries that link runsc's packages (the metric server, the GPU pre-flight's
	// driver table), each in its own module.
	for _, mod := range []string{"go.mod", "cmd/gvisor-metric-server/go.mod", "cmd/gvisor-gpu-check/go.mod"} {
		gomod, err := os.ReadFile("../../../../" + mod)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^\s*gvisor\.dev/gvisor (\S+)`).FindSubmatch(gomod)
		if m == nil {
			t.Errorf("%s does not require gvisor.dev/gvisor: its runsc code needs it", mod)
			continue
		}
		if want := strings.TrimSpace(string(pinned)); string(m[1]) != want {
			t.Errorf("%s requires gvisor.dev/gvisor %s, GVISOR_VERSION is %s: run go get gvisor.dev/gvisor@%s in its directory", mod, m[1], want, want)
		}
	}
}

// TestAllowedFlagsAreRunscFlags: runsc knows every allowlisted flag, and takes each one's documented example.
func TestAllowedFlagsAreRunscFlags(t *testing.T) {
	for _, name := range v1alpha1.AllowedFlags() {
		for _, e := range v1alpha1.RunscJudge(map[string]string{name: "x"}) {
			if strings.Contains(e.Error(), "runsc has no such flag") {
				t.Errorf("%s: %v", name, e)
			}
		}
	}
}

// TestRunscJudges: runsc's own code refuses what it refuses at every sandbox start, in its words, and the
// validator with it, also where the allowlist alone would let it through.
func TestRunscJudges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags map[string]string
		want  string // "" for accepted
	}{
		{"defaults", nil, ""},
		{"shared file access over the default overlay", map[string]string{"file-access": "shared"},
			`providerConfig.configFlags: Invalid value: "--file-access=shared": runsc refuses this set of flags, and would refuse every sandbox of the pool: overlay flag is incompatible with shared file access for rootfs`},
		{"shared file access without overlay", map[string]string{"file-access": "shared", "overlay2": "none"}, ""},
		{"a value runsc cannot parse", map[string]string{"net-raw": "maybe"},
			`providerConfig.configFlags[net-raw]: Invalid value: "maybe": runsc refuses the value: parse error`},
		{"an unknown flag", map[string]string{"net-raww": "true"},
			`providerConfig.configFlags[net-raww]: Invalid value: "true": runsc has no such flag`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := v1alpha1.RunscJudge(tc.flags).ToAggregate()
			switch {
			case tc.want == "" && got != nil:
				t.Errorf("refused: %v", got)
			case tc.want != "" && (got == nil || !strings.HasPrefix(got.Error(), tc.want)):
				t.Errorf("got %v, want it to start with %s", got, tc.want)
			}
		})
	}
}

// TestValidatorAsksRunsc: the shared validator refuses what runsc refuses even where the allowlist has no rule
// for it (the combination rule is its clearer message for the one combination known today).
func TestValidatorAsksRunsc(t *testing.T) {
	flags := map[string]string{"file-access": "shared"}
	errs := v1alpha1.ValidateFlags(flags, v1alpha1.FlagsPath)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `set overlay2: "none" too`) {
		t.Errorf("ValidateFlags(%v) = %v, want the combination error with its fix", flags, errs)
	}
	if v1alpha1.RunscJudge(flags) == nil {
		t.Errorf("runsc accepts %v: the combination rule is no longer needed, or runsc's module is not the one judging", flags)
	}
}

// TestCheckerBounds: a providerConfig with thousands of unknown flags gets MaxErrors errors and one that counts
// the rest; the allowlist is named once; a providerConfig over MaxProviderConfigBytes gets one error and is not
// decoded.
func TestCheckerBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"configFlags":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"x%03d":"v"`, i)
	}
	b.WriteString("}}")
	_, errs := v1alpha1.Parse([]byte(b.String()), v1alpha1.ProviderConfigPath)
	if len(errs) != v1alpha1.MaxErrors+1 {
		t.Fatalf("%d errors, want %d and a count of the rest", len(errs), v1alpha1.MaxErrors+1)
	}
	want := "providerConfig: Forbidden: 990 more errors not listed (only the first 10 are): fix these and apply again"
	if got := errs[len(errs)-1].Error(); got != want {
		t.Errorf("last error %q, want %q", got, want)
	}
	all := errs.ToAggregate().Error()
	if n := strings.Count(all, "cpu-num-from-quota"); n != 1 {
		t.Errorf("the allowlist appears %d times, want once:\n%s", n, all)
	}
	if !strings.Contains(errs[1].Error(), "the allowed flags are listed at providerConfig.configFlags[x000]") {
		t.Errorf("second unknown flag does not point at the first's list: %v", errs[1])
	}

	huge := `{"configFlags":{"debug-log":"/var/log/runsc/` + strings.Repeat("a", v1alpha1.MaxProviderConfigBytes) + `"}}`
	_, errs = v1alpha1.Parse([]byte(huge), v1alpha1.ProviderConfigPath)
	want = "providerConfig: Too long: is 16431 bytes, may not be more than 16384 (every allowed flag fits in 2 KiB): keep only the fields of a GVisorConfiguration"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("oversized providerConfig: %v, want one error %q", errs, want)
	}
}
