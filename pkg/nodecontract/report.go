// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract

// The installer's report: the one line gvisor-installer leaves in its pod's status, the installer container's
// termination message (/dev/termination-log), which the kubelet keeps in
// status.initContainerStatuses[].state.terminated.message for the pod's lifetime, `kubectl get pod -o jsonpath`
// shows and the extension's health check (pkg/controller/healthcheck) reads from the shoot.
//
// A successful run writes Report's line:
//
//	installed gVisor v0.0.0-20260905035102-160fafc42237 (runsc sha512:0123456789ab) on containerd 2.4.2; foreign shims: none
//	uninstalled gVisor; foreign shims: /var/bin/containerruntimes/containerd-shim-runc-v2
//
// A failed run writes the reason first (cmd/gvisor-installer's terminationLine), e.g. "containerd 1.6.20 is not
// supported (minimum containerd 1.7.0); gvisor-installer v1.2.3 install failed". Both are one line of at most
// MaxReportLength bytes. The words are stable: ParseReport reads them back.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxReportLength bounds the line (the kubelet caps a termination message at 4096 bytes; a condition quotes it).
const MaxReportLength = 1024

// maxForeign bounds the foreign files the line names; the rest are counted.
const maxForeign = 5

// noForeign is what the line says when the bin dir holds nothing foreign.
const noForeign = "none"

// unknownContainerd stands for a containerd the run did not ask (--restart=none) or that never answered.
const unknownContainerd = "containerd unknown"

// Report is what a successful run reports.
type Report struct {
	// Uninstall is true for an uninstall; the versions are then empty.
	Uninstall bool
	// GVisor is the installed runsc's version (the release's version stamp).
	GVisor string
	// RunscSum is the installed runsc's SHA-512 (hex); the line shows its first 12 digits.
	RunscSum string
	// Containerd is the CRI runtime's name and version as CRI reported them ("containerd 2.4.2"); empty: unknown.
	Containerd string
	// Foreign are the node paths of runtime-named files in the bin dir that the installer did not write and left
	// alone (pkg/installer/binaries.Foreign).
	Foreign []string
	// GPU is the GPU pre-flight's part, on a node with NVIDIA devices; nil elsewhere.
	GPU *GPUReport
}

// GPUReport is what the line says about a node's NVIDIA driver:
//
//	...; GPU: supported NVIDIA driver 580.159.04, nvproxy on; foreign shims: none
//	...; GPU: unknown NVIDIA driver 570.211.01, nvproxy off: install NVIDIA driver 570.195.03, ...; foreign shims: none
type GPUReport struct {
	// Status is the pre-flight's word for the driver, or GPUProofFailed.
	Status GPUStatus
	// Driver is the driver's version; empty when it was not read.
	Driver string
	// NVProxy says whether runsc's nvproxy is on for the node's sandboxes (only with a supported driver).
	NVProxy bool
	// GPUs is how many GPUs the GPU proof saw through gVisor; 0: no proof passed.
	GPUs int
	// Advice is what to do for GPU pods to run in gVisor; empty when nothing.
	Advice string
}

// noDriver stands for a driver version that was not read.
const noDriver = "unread"

func (g GPUReport) String() string {
	driver, state := g.Driver, "off"
	if driver == "" {
		driver = noDriver
	}
	if g.NVProxy {
		state = "on"
	}
	s := fmt.Sprintf("GPU: %s NVIDIA driver %s, nvproxy %s", g.Status, driver, state)
	if g.GPUs > 0 {
		s += fmt.Sprintf(", %d GPUs proven", g.GPUs)
	}
	if g.Advice != "" {
		s += ": " + g.Advice
	}
	return s
}

// String is the line.
func (s Report) String() string {
	var b strings.Builder
	if s.Uninstall {
		b.WriteString("uninstalled gVisor")
	} else {
		containerd := s.Containerd
		if containerd == "" {
			containerd = unknownContainerd
		}
		fmt.Fprintf(&b, "installed gVisor %s (runsc sha512:%s) on %s", s.GVisor, shortSum(s.RunscSum), containerd)
		if s.GPU != nil {
			b.WriteString("; " + s.GPU.String())
		}
	}
	b.WriteString("; foreign shims: " + foreignList(s.Foreign))
	return BoundLine(b.String())
}

func shortSum(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

func foreignList(paths []string) string {
	if len(paths) == 0 {
		return noForeign
	}
	if len(paths) <= maxForeign {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:maxForeign], ", ") + fmt.Sprintf(", and %d more", len(paths)-maxForeign)
}

var (
	installedLine = regexp.MustCompile(`^installed gVisor (\S+) \(runsc sha512:([0-9a-f]*)\) on (.+?)` +
		`(?:; GPU: (\S+) NVIDIA driver (\S+), nvproxy (on|off)(?:, ([0-9]+) GPUs proven)?(?:: (.*?))?)?; foreign shims: (.*)$`)
	uninstalledLine = regexp.MustCompile(`^uninstalled gVisor; foreign shims: (.*)$`)
)

// ParseReport reads a Report line back; ok is false for anything else (a failure's line, an older installer's message,
// the kubelet's log tail). RunscSum holds the line's 12 digits; Containerd is empty when the line says unknown;
// Foreign holds the named paths (an "and N more" tail is kept as it is).
func ParseReport(line string) (s Report, ok bool) {
	line = strings.TrimSpace(line)
	if m := installedLine.FindStringSubmatch(line); m != nil {
		s = Report{GVisor: m[1], RunscSum: m[2], Containerd: m[3], Foreign: parseForeign(m[9])}
		if s.Containerd == unknownContainerd {
			s.Containerd = ""
		}
		if m[4] != "" {
			gpus, _ := strconv.Atoi(m[7]) // digits or empty
			s.GPU = &GPUReport{Status: GPUStatus(m[4]), Driver: m[5], NVProxy: m[6] == "on", GPUs: gpus, Advice: m[8]}
			if s.GPU.Driver == noDriver {
				s.GPU.Driver = ""
			}
		}
		return s, true
	}
	if m := uninstalledLine.FindStringSubmatch(line); m != nil {
		return Report{Uninstall: true, Foreign: parseForeign(m[1])}, true
	}
	return Report{}, false
}

func parseForeign(list string) []string {
	if list == noForeign || list == "" {
		return nil
	}
	return strings.Split(list, ", ")
}

// BoundLine makes s one line of at most MaxReportLength bytes: blanks collapsed, cut with "..." when longer.
func BoundLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > MaxReportLength {
		s = strings.ToValidUTF8(s[:MaxReportLength-3], "") + "..."
	}
	return s
}
