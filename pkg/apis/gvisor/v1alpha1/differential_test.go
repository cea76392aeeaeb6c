// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Classes of a differential case: what the validator and the pinned runsc binary must both say. A policy class
// is a reason: the validator refuses by the project's allowlist, on purpose, what runsc's `list` still starts with.
const (
	bothAccept = "both accept"
	bothRefuse = "both refuse"
)

// flagCase is one value of one flag (or a few flags) and its class.
type flagCase struct {
	flags map[string]string
	class string // bothAccept, bothRefuse, or the reason the policy refuses what runsc accepts
}

func one(name, value, class string) flagCase {
	return flagCase{map[string]string{name: value}, class}
}

const (
	nonCanonical = "policy: one spelling per value, so equal configurations give equal runsc.toml files"
	atStart      = "policy: runsc's config takes any string here and fails only when it starts a sandbox"
	onNode       = "policy: runsc list opens the path, but it is outside what a shoot owner may make runsc write as root"
	worstCase    = "policy: at a sandbox start %ID% is a 64-character sandbox ID, not list's <unknown>"
	noDir        = "policy: runsc's config takes dir=<path>, the sandbox fails unless the directory exists on the node"
	sentrySize   = "policy: runsc's config keeps size= unparsed; the sentry's tmpfs refuses it at every sandbox start"
	privileged   = "policy: a privileged NVIDIA capability runsc leaves out of \"all\" is not offered to pods"
	noCaps       = "policy: no capabilities at all makes every GPU call fail (runsc only warns)"
)

// valueCases are the value classes of every allowlisted flag: valid values, invalid ones, and the edges where the
// allowlist is narrower than runsc's parser.
func valueCases() []flagCase {
	var cases []flagCase
	for _, name := range []string{"net-raw", "debug", "strace", "nvproxy", "directfs", "cpu-num-from-quota"} {
		cases = append(cases, one(name, "true", bothAccept), one(name, "false", bothAccept),
			one(name, "yes", bothRefuse), one(name, "", bothRefuse), one(name, "maybe", bothRefuse),
			one(name, "1", nonCanonical), one(name, "0", nonCanonical), one(name, "True", nonCanonical),
			one(name, "FALSE", nonCanonical), one(name, "t", nonCanonical))
	}
	cases = append(cases,
		one("platform", "systrap", bothAccept), one("platform", "ptrace", bothAccept), one("platform", "kvm", bothAccept),
		one("platform", "kvm2", atStart), one("platform", "", atStart), one("platform", "SYSTRAP", atStart),
		one("panic-signal", "-1", bothAccept), one("panic-signal", "0", bothAccept), one("panic-signal", "12", bothAccept),
		one("panic-signal", "31", bothAccept), one("panic-signal", "abc", bothRefuse), one("panic-signal", "", bothRefuse),
		one("panic-signal", "1.5", bothRefuse), one("panic-signal", "32", atStart), one("panic-signal", "-2", atStart),
		one("panic-signal", "012", nonCanonical), one("panic-signal", "0x0c", nonCanonical), one("panic-signal", "+5", nonCanonical),
		one("watchdog-action", "log", bothAccept), one("watchdog-action", "panic", bothAccept),
		one("watchdog-action", "kill", atStart), one("watchdog-action", "", atStart),
		one("watchdog-action", "logwarning", nonCanonical),
		one("file-access", "exclusive", bothAccept), one("file-access", "shared", bothRefuse),
		one("file-access", "none", bothRefuse), one("file-access", "", bothRefuse),
		flagCase{map[string]string{"file-access": "shared", "overlay2": "none"}, bothAccept},
		flagCase{map[string]string{"file-access": "shared", "overlay2": "root:memory"}, bothRefuse},
	)
	cases = append(cases, overlayCases()...)
	cases = append(cases, driverCapsCases()...)
	return append(cases, debugLogCases()...)
}

func driverCapsCases() []flagCase {
	const name = "nvproxy-allowed-driver-capabilities"
	var cases []flagCase
	for _, v := range []string{"compute,utility", "utility,compute", "all", "compute", "compute,utility,graphics,video,ngx", "all,compute"} {
		cases = append(cases, one(name, v, bothAccept))
	}
	for _, v := range []string{"cuda", "display", "compat32", "compute,bogus"} {
		cases = append(cases, one(name, v, bothRefuse))
	}
	for _, v := range []string{"profiling", "rdma", "fabric-imex-mgmt", "compute,profiling"} {
		cases = append(cases, one(name, v, privileged))
	}
	return append(cases, one(name, "", noCaps),
		one(name, "compute, utility", nonCanonical), one(name, "compute,,utility", nonCanonical),
		one(name, "compute,compute", nonCanonical))
}

func overlayCases() []flagCase {
	var cases []flagCase
	for _, v := range []string{"none", "root:memory", "root:self", "all:memory", "all:self", "root:self,size=1g",
		"all:memory,size=512m", "root:memory,size=1", "root:self,size=8388608t", "all:self,size=7K"} {
		cases = append(cases, one("overlay2", v, bothAccept))
	}
	for _, v := range []string{"", "root", "root:disk", "submounts:memory", "root:memory,foo=1", "root:memory,size=1g,size=2g",
		"root:dir=relative", "ROOT:memory"} {
		cases = append(cases, one("overlay2", v, bothRefuse))
	}
	return append(cases, one("overlay2", "root:dir=/var/log/overlay", noDir), one("overlay2", "all:dir=/var/log/x,size=1g", noDir),
		one("overlay2", "root:memory,size=lots", sentrySize), one("overlay2", "root:memory,size=", sentrySize),
		one("overlay2", "root:self,size=8388609t", sentrySize), one("overlay2", "root:self,size=01g", nonCanonical),
		one("overlay2", "root:self,size=10%", nonCanonical))
}

func debugLogCases() []flagCase {
	dir := v1alpha1.DebugLogDir
	cases := []flagCase{
		one("debug-log", dir, bothAccept), one("debug-log", dir+"%ID%/", bothAccept), one("debug-log", v1alpha1.DefaultDebugLog, bothAccept),
		one("debug-log", dir+"gvisor.log", bothAccept), one("debug-log", dir+"%ID%/%CID%-%TIMESTAMP%-%COMMAND%.log", bothAccept),
		one("debug-log", dir+strings.Repeat("a", 255), bothAccept),
		one("debug-log", dir+strings.Repeat("a", 191)+"%ID%", bothAccept),
		one("debug-log", dir+strings.Repeat("d/", 330), bothAccept),
		one("debug-log", dir+strings.Repeat("a", 256), bothRefuse),
		one("debug-log", dir+strings.Repeat("a", 300)+"/", bothRefuse),
		one("debug-log", dir+strings.Repeat("a", 192)+"%ID%", worstCase),
		one("debug-log", dir+strings.Repeat("a", 220)+"%TIMESTAMP%", worstCase),
		one("debug-log", dir+strings.Repeat("a", 250)+"%TIMESTAMP%", bothRefuse),
		one("debug-log", dir+strings.Repeat("d/", 450), worstCase),
		one("debug-log", "/tmp/runsc.log", onNode), one("debug-log", "/var/log/runsc", onNode),
		one("debug-log", "relative/runsc.log", onNode), one("debug-log", dir+"../x.log", bothRefuse),
		one("debug-log", dir+"%ID%/../x.log", bothRefuse),
		one("debug-log", dir+"a b.log", onNode), one("debug-log", dir+"%TEST%.log", onNode),
		one("debug-log", dir+"50%.log", onNode), one("debug-log", dir+"x//y.log", nonCanonical),
		one("debug-log", "", "policy: an explicit empty debug-log is refused rather than read as no log"),
	}
	// debug and strace without debug-log: WithDefaults gives them DefaultDebugLog, which runsc gets.
	return append(cases, one("debug", "true", bothAccept), flagCase{map[string]string{"debug": "true", "strace": "true"}, bothAccept})
}

// runscBinary runs the pinned runsc: `runsc --root=... <flags> list` parses the flags, loads and validates the
// config and opens the debug log whenever debug-log is set (runsc/cli.Run), before it lists the empty root. It runs
// in a private mount namespace with tmpfs over /var/log and /tmp, so the logs it creates never reach this host.
type runscBinary struct {
	path, workDir string
}

func newRunscBinary(t *testing.T) runscBinary {
	t.Helper()
	path := filepath.Join(realcomponents.GVisorDir(t), "runsc")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("GVISOR_TEST_GVISOR_DIR has no runsc: %v", err)
	}
	if os.Geteuid() != 0 {
		msg := "the differential test needs root: runsc opens its logs in a private mount namespace"
		if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return runscBinary{path: path, workDir: t.TempDir()}
}

// accepts reports whether runsc starts with flags; a failure of the harness itself fails the test.
func (r runscBinary) accepts(t *testing.T, flags map[string]string) (bool, string) {
	t.Helper()
	args := []string{"--mount", "--propagation", "private", "--", "sh", "-c",
		`mount -t tmpfs tmpfs /var/log && mount -t tmpfs tmpfs /tmp && exec "$@"`, "sh", r.path, "--root=/var/log/.differential-root"}
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		args = append(args, "--"+name+"="+flags[name])
	}
	cmd := exec.Command("unshare", append(args, "list")...)
	cmd.Dir = r.workDir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, string(out)
	case errors.As(err, &exit) && (exit.ExitCode() == 128 || exit.ExitCode() == 2): // util.Fatalf, flag parse error
		return false, string(out)
	}
	t.Fatalf("the harness failed (not runsc): %v\n%s", err, out)
	return false, ""
}

// TestDifferentialRunsc: every value class of every allowlisted flag, and generated combinations, judged by the
// validator and by the pinned runsc binary. Any disagreement fails: a set the validator accepts that runsc
// refuses, a set runsc refuses that the validator accepts, and a policy refusal the table does not document.
func TestDifferentialRunsc(t *testing.T) {
	r := newRunscBinary(t)
	cases := valueCases()
	for _, c := range cases {
		checkCase(t, r, c)
	}
	combos := combinations()
	for _, flags := range combos {
		checkCase(t, r, flagCase{flags, expectedCombination(flags)})
	}
	t.Logf("%d value cases of %d flags, %d combinations", len(cases), len(v1alpha1.AllowedFlags()), len(combos))
}

// checkCase judges c with the validator and the binary. runsc gets the flags the renderer writes (WithDefaults);
// for an accepted debug-log the binary also opens it at its longest (every variable 64 bytes), as at a sandbox
// start.
func checkCase(t *testing.T, r runscBinary, c flagCase) {
	t.Helper()
	errs := v1alpha1.ValidateFlags(c.flags, v1alpha1.FlagsPath)
	rendered := v1alpha1.WithDefaults(c.flags)
	binOK, out := r.accepts(t, rendered)
	policy := v1alpha1.PolicyErrors(c.flags)
	switch c.class {
	case bothAccept:
		if len(errs) > 0 || !binOK {
			t.Errorf("%v: validator %v, runsc accepts=%v (%s); want both to accept", c.flags, errs, binOK, out)
		}
	case bothRefuse:
		if len(errs) == 0 || binOK {
			t.Errorf("%v: validator %v, runsc accepts=%v; want both to refuse", c.flags, errs, binOK)
		}
	default: // a documented policy refusal: the allowlist refuses, runsc's own code and binary accept
		if len(policy) == 0 || !binOK || len(v1alpha1.RunscJudge(rendered)) > 0 {
			t.Errorf("%v (%s): allowlist %v, runsc accepts=%v (%s); want the allowlist alone to refuse", c.flags, c.class, policy, binOK, out)
		}
	}
	// runsc's code in the validator and the binary agree wherever no file is opened.
	if _, logs := rendered["debug-log"]; !logs && (len(v1alpha1.RunscJudge(rendered)) == 0) != binOK {
		t.Errorf("%v: the validator's runsc code says %v, the binary accepts=%v (%s)", c.flags, v1alpha1.RunscJudge(rendered), binOK, out)
	}
	if log, set := rendered["debug-log"]; set && len(errs) == 0 {
		longest := maps.Clone(rendered)
		longest["debug-log"] = v1alpha1.ExpandWorstCase(log)
		if ok, out := r.accepts(t, longest); !ok {
			t.Errorf("%v: accepted, but runsc cannot open the debug log at its longest: %s", c.flags, out)
		}
	}
}

// combinations are generated flag sets: every pair of a file-access and an overlay2 value, and random sets of the
// values both accept (a fixed seed, so every run judges the same sets).
func combinations() []map[string]string {
	pool := map[string][]string{}
	for _, c := range valueCases() {
		if c.class == bothAccept && len(c.flags) == 1 {
			for name, v := range c.flags {
				pool[name] = append(pool[name], v)
			}
		}
	}
	var sets []map[string]string
	for _, fa := range []string{"exclusive", "shared"} {
		for _, ov := range pool["overlay2"] {
			sets = append(sets, map[string]string{"file-access": fa, "overlay2": ov})
		}
	}
	rng := rand.New(rand.NewPCG(20, 1))
	names := slices.Sorted(maps.Keys(pool))
	pool["file-access"] = append(pool["file-access"], "shared")
	for range 200 {
		set := map[string]string{}
		for _, name := range names {
			if rng.IntN(2) == 0 {
				set[name] = pool[name][rng.IntN(len(pool[name]))]
			}
		}
		sets = append(sets, set)
	}
	return sets
}

// expectedCombination: of combined values both accept alone, runsc refuses only shared file access over an overlay.
func expectedCombination(flags map[string]string) string {
	if flags["file-access"] == "shared" && flags["overlay2"] != "none" {
		return bothRefuse
	}
	return bothAccept
}
