// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package containerdversion is the installer's containerd version policy: the one place that says which containerd
// releases this gVisor release supports, and why.
//
// The installer reads the version over containerd's CRI (Version) before it touches the host and refuses a
// containerd below the minimum with the host byte for byte untouched. When CRI does not answer at the start
// (containerd down, for example killed by the field's extension's wrong plugin key), it does not refuse: the repair
// proceeds, and the version is checked once containerd answers again, before the sandbox proof (a version below the
// minimum then gets the same message, and containerd's previous configuration is restored).
package containerdversion

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// Minimum is the oldest containerd this gVisor release runs on: 1.7.
//
// Why 1.7: the shim we ship (containerd-shim-runsc-v1) answers containerd's `start` with the JSON bootstrap reply
// of shim protocol version 2 ({"version":2,"address":"unix:///run/containerd/s/...","protocol":"ttrpc"}), which
// containerd 1.7 and later parse and 1.6 does not: on Debian's containerd 1.6.20 every runsc sandbox fails with
// `dial unix \x00{"version":2,...}: connect: invalid argument`, while runsc is registered and every CRI check is
// green. Proven with real sandboxes on 1.7.35, 2.0.14, 2.2.9 and 2.4.2 (docs/operator-guide.md, "Supported
// containerd versions").
func Minimum() Version { return Version{Major: 1, Minor: 7} }

// Version is a containerd release as CRI reports it.
type Version struct {
	Major, Minor, Patch int
	// Raw is the text CRI reported, e.g. "1.6.20~ds1" (Debian), "v2.0.14", "1.7.35+unknown" (built from source).
	Raw string
}

func (v Version) String() string {
	if v.Raw != "" {
		return v.Raw
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Less reports whether v is an older release line than w (major.minor; patches do not matter for the policy).
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	return v.Minor < w.Minor
}

// Parse reads a containerd version: an optional "v", then major.minor[.patch], then anything that does not
// continue the number (Debian's "~ds1", "-rc.1", "+unknown", a space and a commit).
func Parse(s string) (Version, error) {
	v := Version{Raw: strings.TrimSpace(s)}
	rest := strings.TrimPrefix(v.Raw, "v")
	end := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if end >= 0 {
		rest = rest[:end]
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("containerd version %q is not major.minor[.patch]", s)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("containerd version %q is not major.minor[.patch]", s)
		}
		nums[i] = n
	}
	v.Major, v.Minor, v.Patch = nums[0], nums[1], nums[2]
	return v, nil
}

// Check returns a refusal when the CRI runtime named name at version raw is not a containerd this release supports.
// An unparseable version is not refused (ok=false tells the caller to log it): the sandbox proof still decides
// whether gVisor works there.
func Check(name, raw string) (v Version, ok bool, err error) {
	if name != "containerd" {
		return Version{Raw: raw}, false, refusal.New(fmt.Sprintf("CRI runtime %s %s", name, raw), "the node's CRI socket is not served by containerd, and the installer registers runsc with containerd only",
			"run gVisor only on worker pools with CRI containerd")
	}
	v, err = Parse(raw)
	if err != nil {
		// Deliberate: an unparseable version (a distribution's "devel" build) is not a refusal; ok=false makes the
		// caller log the raw version, and the sandbox proof decides whether gVisor works on this containerd.
		return v, false, nil //nolint:nilerr // see above: not refusing is the policy, the caller logs it
	}
	if minimum := Minimum(); v.Less(minimum) {
		return v, true, refusal.New("containerd "+v.String(), fmt.Sprintf("this gVisor release needs containerd %s or later: its shim answers containerd's start with the JSON bootstrap reply (shim protocol 2), which containerd %d.%d does not understand, so no gVisor sandbox could start on this node", minimum, v.Major, v.Minor),
			"upgrade the node's containerd (a machine image version with containerd "+minimum.String()+" or later for the worker pool), or remove gvisor from the worker pool's container runtimes")
	}
	return v, true, nil
}
