// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package preflight

import (
	"fmt"
	"slices"
	"strings"

	"gvisor.dev/gvisor/pkg/sentry/devices/nvproxy"
	"gvisor.dev/gvisor/pkg/sentry/devices/nvproxy/nvconf"
)

// Judge classifies driver version driver (as the driver gives it, "580.159.04") with the table of the runsc this
// module pins: the one nvproxy.Register consults when a GPU sandbox boots (a known and supported ABI starts; a known
// but unsupported one, or none, refuses the sandbox with "unsupported Nvidia driver version"). gvisor is the
// module's version, for the message. No copy of the table exists here: runsc's own code is the judge.
func Judge(driver, gvisor string) Verdict {
	nvproxy.Init()
	v := Verdict{Driver: driver, GVisor: gvisor}
	version, err := nvconf.DriverVersionFrom(driver)
	if err != nil {
		v.Status = Malformed
		v.Message = fmt.Sprintf("the NVIDIA driver reports version %q, which runsc cannot read (%v): GPU pods cannot start in gVisor on this node", driver, err)
		return v
	}
	_, known := nvproxy.SupportedIoctls(version)
	_, supported := nvproxy.ExpectedDriverChecksum(version)
	switch {
	case supported:
		v.Status = Supported
		v.Message = fmt.Sprintf("NVIDIA driver %s is supported by gVisor %s's nvproxy", driver, gvisor)
		return v
	case known:
		v.Status = Unsupported
		v.Message = fmt.Sprintf("NVIDIA driver %s is known to gVisor %s's nvproxy but not supported: GPU pods fail to start in gVisor on this node", driver, gvisor)
	default:
		v.Status = Unknown
		v.Message = fmt.Sprintf("NVIDIA driver %s is unknown to gVisor %s's nvproxy: GPU pods fail to start in gVisor on this node", driver, gvisor)
	}
	all := nvproxy.SupportedDrivers()
	if nearest, ok := nearestOnBranch(version, all); ok {
		v.Nearest = nearest.String()
		v.Message += fmt.Sprintf("; install driver %s, the nearest supported version of branch %d", v.Nearest, version.Major())
		return v
	}
	v.Branches = newestPerBranch(all)
	v.Message += fmt.Sprintf("; it supports no driver of branch %d: install one of %s", version.Major(), strings.Join(v.Branches, ", "))
	return v
}

// nearestOnBranch is the supported version on version's branch closest to it: the oldest newer one (an upgrade
// within the branch keeps the CUDA compatibility the pods were built for), else the newest older one.
func nearestOnBranch(version nvconf.DriverVersion, supported []nvconf.DriverVersion) (nvconf.DriverVersion, bool) {
	var older []nvconf.DriverVersion
	for _, s := range supported { // ascending (nvproxy.SupportedDrivers)
		if s.Major() != version.Major() {
			continue
		}
		if s.IsGreaterThan(version) {
			return s, true
		}
		older = append(older, s)
	}
	if len(older) == 0 {
		return nvconf.DriverVersion{}, false
	}
	return older[len(older)-1], true
}

// newestPerBranch is the newest supported version of each supported branch, newest branch first.
func newestPerBranch(supported []nvconf.DriverVersion) []string {
	newest := map[int]nvconf.DriverVersion{}
	for _, s := range supported {
		if n, ok := newest[s.Major()]; !ok || s.IsGreaterThan(n) {
			newest[s.Major()] = s
		}
	}
	var majors []int
	for m := range newest {
		majors = append(majors, m)
	}
	slices.Sort(majors)
	slices.Reverse(majors)
	out := make([]string, 0, len(majors))
	for _, m := range majors {
		out = append(out, newest[m].String())
	}
	return out
}
