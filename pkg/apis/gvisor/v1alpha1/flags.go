// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// flagSpec describes the values one runsc flag accepts.
type flagSpec struct {
	// allowed is the human-readable description of the accepted values, used in error messages.
	allowed string
	// enum, when non-empty, is the exhaustive list of accepted values.
	enum []string
	// check validates values of non-enum flags; it returns a reason the value is refused.
	check func(value string) error
}

var boolValues = []string{"false", "true"}

// allowedFlags is the allowlist of runsc flags a shoot owner may set, with typed values.
//
// WHY an allowlist: runsc reads runsc.toml at every sandbox start, so an unknown flag or a bad value breaks every
// gVisor pod on the pool, long after the shoot owner saved the Shoot. Flags that weaken the sandbox's isolation
// from the host (network=host, host-uds, ...) or that only make sense for runsc developers stay out.
//
// Values are those runsc's own flag parser accepts (gvisor.dev/gvisor/runsc/config), narrowed to one canonical
// spelling each (for example "true", not "1" or "True"), so equal configurations give byte-identical runsc.toml.
var allowedFlags = map[string]flagSpec{
	// net-raw enables raw sockets, which Istio's init container needs to set up iptables.
	"net-raw": {allowed: "true or false", enum: boolValues},
	// debug writes runsc debug logs to debug-log (DefaultDebugLog when unset, see WithDefaults).
	"debug": {allowed: "true or false", enum: boolValues},
	// debug-log is the host path of the debug logs; a trailing "/" makes runsc create one file per command there.
	// Its path rules are in paths.go.
	"debug-log": {allowed: debugLogAllowed, check: checkDebugLog},
	// strace logs the sandboxed application's system calls to debug-log (DefaultDebugLog when unset).
	"strace": {allowed: "true or false", enum: boolValues},
	// nvproxy is accepted for Shoots written for the field's extension and never reaches a node's runsc.toml from
	// the pool (NodeDecidedFlags): each node turns it on itself when its NVIDIA driver passes the GPU pre-flight
	// (runscconfig.ForNode), since node-wide on a node without a supported driver it fails every sandbox there (a
	// CPU node of a mixed pool, a GPU node before its driver loaded). "false" opts the pool's nodes out
	// (runscconfig.NVProxy).
	"nvproxy": {allowed: "true or false", enum: boolValues},
	// nvproxy-allowed-driver-capabilities are the NVIDIA driver capabilities a GPU container may ask for
	// (NVIDIA_DRIVER_CAPABILITIES); runsc's default is compute,utility. Privileged ones stay out: checkDriverCaps.
	"nvproxy-allowed-driver-capabilities": {allowed: driverCapsAllowed, check: checkDriverCaps},
	// platform chooses how the sandbox intercepts system calls; kvm needs /dev/kvm on the node.
	"platform": {allowed: "systrap, ptrace or kvm", enum: []string{"kvm", "ptrace", "systrap"}},
	// panic-signal makes the sandbox panic (with stack traces) on that signal, to debug hangs; -1 disables it.
	"panic-signal": {allowed: "an integer from -1 to 31", check: checkPanicSignal},
	// directfs lets the sentry open container files directly (default true); false routes file access through the gofer.
	"directfs": {allowed: "true or false", enum: boolValues},
	// overlay2 wraps mounts with an overlay filesystem backed by memory or by a file in the mount itself.
	"overlay2": {allowed: "none, or {root|all}:{memory|self} optionally followed by ,size=<number>[k|m|g|t]", check: checkOverlay2},
	// file-access chooses whether the root filesystem may be changed from outside the sandbox. runsc refuses shared
	// with an overlay on the root filesystem (its default overlay2 is root:self): checkCombinations.
	"file-access": {allowed: "exclusive, or shared together with overlay2: none", enum: []string{"exclusive", "shared"}},
	// watchdog-action decides what happens when the sandbox watchdog detects a stuck task.
	"watchdog-action": {allowed: "log or panic", enum: []string{"log", "panic"}},
	// cpu-num-from-quota sizes the sandbox's CPU count by the container's CPU quota (default true).
	"cpu-num-from-quota": {allowed: "true or false", enum: boolValues},
}

// DefaultDebugLog is the debug-log WithDefaults sets when debug or strace is "true" and debug-log is unset: the path
// the field's extension writes its runsc logs to, so that shoots written for it (`debug: "true"` alone) keep
// working and their logs land where their owners look. containerd-shim-runsc-v1 replaces %ID% with the sandbox's
// ID and runsc replaces %COMMAND% with its subcommand (create, boot, gofer, ...); runsc creates the directories
// itself (os.MkdirAll in runsc/specutils.DebugLogFile), so nothing has to exist on the node beforehand.
const DefaultDebugLog = "/var/log/runsc/%ID%/gvisor-%COMMAND%.log"

// needsDebugLog are the flags whose output goes to the debug log: set to "true" without a debug-log, runsc would
// write their output nowhere a shoot owner can read it.
var needsDebugLog = []string{"debug", "strace"}

// WithDefaults returns flags with the defaults filled in: debug-log is DefaultDebugLog when debug or strace is
// "true" and debug-log is not set. An explicit debug-log always wins (also one that Validate refuses: the error then
// names what the shoot owner wrote). flags itself is not changed; the result is a new map, or nil when flags is
// empty. The renderer applies it to every installation it renders (render.Renderer.Installation), so the
// controller, gvisor-render and direct users of the renderer give the same runsc.toml for the same flags.
func WithDefaults(flags map[string]string) map[string]string {
	if len(flags) == 0 {
		return nil
	}
	out := make(map[string]string, len(flags)+1)
	for k, v := range flags {
		out[k] = v
	}
	if _, set := out["debug-log"]; !set {
		for _, name := range needsDebugLog {
			if out[name] == "true" {
				out["debug-log"] = DefaultDebugLog
				break
			}
		}
	}
	return out
}

// nodeDecidedFlags are allowed flags that each node decides for itself, so a pool's runsc.toml never carries them
// (runscconfig.Flags drops them; runscconfig.ForNode sets them per node).
var nodeDecidedFlags = []string{"nvproxy"}

// NodeDecidedFlags returns the allowed flags that never reach a node's runsc.toml from the pool, sorted.
func NodeDecidedFlags() []string { return slices.Clone(nodeDecidedFlags) }

// AllowedFlags returns the names of the runsc flags a GVisorConfiguration may set, sorted.
func AllowedFlags() []string {
	names := make([]string, 0, len(allowedFlags))
	for name := range allowedFlags {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// AllowedValues returns the human-readable description of the values flag accepts, or "" for an unknown flag.
func AllowedValues(flag string) string { return allowedFlags[flag].allowed }

func checkPanicSignal(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || strconv.Itoa(n) != v {
		return fmt.Errorf("must be an integer written plainly, for example \"12\" (SIGUSR2) or \"-1\"")
	}
	if n < -1 || n > 31 {
		return fmt.Errorf("must be between -1 and 31")
	}
	return nil
}

// overlaySize is what the sentry's tmpfs accepts as size= (pkg/sentry/fsimpl/tmpfs parseSize), in one spelling:
// a number without leading zeros and an optional binary unit; checkOverlay2 also refuses sizes that overflow.
var overlaySize = regexp.MustCompile(`^([1-9][0-9]{0,18})([kKmMgGtT]?)$`)

// checkOverlay2 accepts none and the memory and self media. The dir=<host directory> medium is not offered: runsc
// fails every sandbox when the directory does not exist on the node (nothing of a shoot creates it), and its
// filestore there escapes the pod's ephemeral-storage accounting; runsc itself lets only memory and self be set
// from a pod (its flag-override allowlist, runsc/config/flags.go checkOverlay2).
func checkOverlay2(v string) error {
	if v == "none" {
		return nil
	}
	spec, size, hasSize := strings.Cut(v, ",")
	mount, medium, ok := strings.Cut(spec, ":")
	if !ok || (mount != "root" && mount != "all") {
		return fmt.Errorf("must start with %q or %q", "root:", "all:")
	}
	switch {
	case medium == "memory", medium == "self":
	case strings.HasPrefix(medium, "dir="):
		return fmt.Errorf("medium dir= is not offered (the directory would have to exist on every node): use self (a file in the container's root filesystem) or memory")
	default:
		return fmt.Errorf("medium %q must be memory or self", medium)
	}
	if hasSize {
		s, ok := strings.CutPrefix(size, "size=")
		if !ok {
			return fmt.Errorf("%q must be size=<number>[k|m|g|t]", size)
		}
		if err := checkOverlaySize(s); err != nil {
			return err
		}
	}
	return nil
}

// checkOverlaySize refuses what the sentry's tmpfs would refuse at every sandbox start: a malformed size or one
// that overflows 64 bits when rounded up to pages.
func checkOverlaySize(s string) error {
	m := overlaySize.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("size=%s must be size=<number>[k|m|g|t], for example size=2g", s)
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	shift := 0 // bytes; k is 2^10, m 2^20, g 2^30, t 2^40
	if m[2] != "" {
		shift = 10 * (strings.Index("kmgt", strings.ToLower(m[2])) + 1)
	}
	if err != nil || n > (1<<63)>>shift { // the sentry rounds the size up to pages in 64 bits
		return fmt.Errorf("size=%s is larger than 2^63 bytes", s)
	}
	return nil
}
