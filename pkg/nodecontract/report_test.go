// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// TestReportLine: the line's words are the contract the health check and the operator guide's jsonpath rely on;
// ParseReport reads every form back.
func TestReportLine(t *testing.T) {
	sum := strings.Repeat("0123456789ab", 10) + "cdefcdef"
	foreign := []string{"/var/bin/containerruntimes/containerd-shim-runc-v2", "/var/bin/containerruntimes/runc"}
	for _, tc := range []struct {
		in   nodecontract.Report
		want string
		back nodecontract.Report
	}{
		{
			in:   nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: sum, Containerd: "containerd 2.4.2"},
			want: "installed gVisor v0.0.0-20260905035102-160fafc42237 (runsc sha512:0123456789ab) on containerd 2.4.2; foreign shims: none",
			back: nodecontract.Report{GVisor: "v0.0.0-20260905035102-160fafc42237", RunscSum: "0123456789ab", Containerd: "containerd 2.4.2"},
		},
		{
			in:   nodecontract.Report{GVisor: "unknown", RunscSum: sum, Foreign: foreign},
			want: "installed gVisor unknown (runsc sha512:0123456789ab) on containerd unknown; foreign shims: " + strings.Join(foreign, ", "),
			back: nodecontract.Report{GVisor: "unknown", RunscSum: "0123456789ab", Foreign: foreign},
		},
		{
			in: nodecontract.Report{GVisor: "v1", RunscSum: sum, Containerd: "containerd 2.4.2",
				GPU: &nodecontract.GPUReport{Status: "supported", Driver: "580.159.04", NVProxy: true, GPUs: 8}},
			want: "installed gVisor v1 (runsc sha512:0123456789ab) on containerd 2.4.2; GPU: supported NVIDIA driver 580.159.04, nvproxy on, 8 GPUs proven; foreign shims: none",
			back: nodecontract.Report{GVisor: "v1", RunscSum: "0123456789ab", Containerd: "containerd 2.4.2",
				GPU: &nodecontract.GPUReport{Status: "supported", Driver: "580.159.04", NVProxy: true, GPUs: 8}},
		},
		{
			in: nodecontract.Report{GVisor: "v1", RunscSum: sum, Containerd: "containerd 2.4.2",
				GPU: &nodecontract.GPUReport{Status: "supported", Driver: "580.159.04", NVProxy: true}},
			want: "installed gVisor v1 (runsc sha512:0123456789ab) on containerd 2.4.2; GPU: supported NVIDIA driver 580.159.04, nvproxy on; foreign shims: none",
			back: nodecontract.Report{GVisor: "v1", RunscSum: "0123456789ab", Containerd: "containerd 2.4.2",
				GPU: &nodecontract.GPUReport{Status: "supported", Driver: "580.159.04", NVProxy: true}},
		},
		{
			in: nodecontract.Report{GVisor: "v1", RunscSum: sum, Containerd: "containerd 2.4.2", Foreign: foreign[:1],
				GPU: &nodecontract.GPUReport{Status: "unknown", Driver: "570.211.01", Advice: "install NVIDIA driver 570.195.03, the nearest of its branch"}},
			want: "installed gVisor v1 (runsc sha512:0123456789ab) on containerd 2.4.2; GPU: unknown NVIDIA driver 570.211.01, nvproxy off: " +
				"install NVIDIA driver 570.195.03, the nearest of its branch; foreign shims: " + foreign[0],
			back: nodecontract.Report{GVisor: "v1", RunscSum: "0123456789ab", Containerd: "containerd 2.4.2", Foreign: foreign[:1],
				GPU: &nodecontract.GPUReport{Status: "unknown", Driver: "570.211.01", Advice: "install NVIDIA driver 570.195.03, the nearest of its branch"}},
		},
		{
			in:   nodecontract.Report{GVisor: "v1", RunscSum: sum, GPU: &nodecontract.GPUReport{Status: "unreadable", Advice: "the driver did not answer"}},
			want: "installed gVisor v1 (runsc sha512:0123456789ab) on containerd unknown; GPU: unreadable NVIDIA driver unread, nvproxy off: the driver did not answer; foreign shims: none",
			back: nodecontract.Report{GVisor: "v1", RunscSum: "0123456789ab", GPU: &nodecontract.GPUReport{Status: "unreadable", Advice: "the driver did not answer"}},
		},
		{
			in:   nodecontract.Report{Uninstall: true},
			want: "uninstalled gVisor; foreign shims: none",
			back: nodecontract.Report{Uninstall: true},
		},
	} {
		got := tc.in.String()
		if got != tc.want {
			t.Errorf("line:\n got %q\nwant %q", got, tc.want)
		}
		if back, ok := nodecontract.ParseReport(got + "\n"); !ok || !reflect.DeepEqual(back, tc.back) {
			t.Errorf("ParseReport(%q) = %+v, %v; want %+v", got, back, ok, tc.back)
		}
	}
	for _, other := range []string{"", "install failed (v1): refusing /etc/containerd/config.toml", "containerd 1.6.20 is not supported (minimum containerd 1.7.0); gvisor-installer v1 install failed"} {
		if _, ok := nodecontract.ParseReport(other); ok {
			t.Errorf("ParseReport(%q) accepted a line that is not a success", other)
		}
	}
}

// TestReportLineBounded: many foreign files are counted, not listed, and the line stays within MaxReportLength.
func TestReportLineBounded(t *testing.T) {
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, "/var/bin/containerruntimes/containerd-shim-x"+strings.Repeat("y", 30)+"-v2")
	}
	got := nodecontract.Report{GVisor: "v1", RunscSum: "ab", Containerd: "containerd 2.0.14", Foreign: many}.String()
	if !strings.HasSuffix(got, ", and 35 more") || len(got) > nodecontract.MaxReportLength {
		t.Errorf("line %q (%d bytes): want 5 named, 35 counted, at most %d bytes", got, len(got), nodecontract.MaxReportLength)
	}
	if s, ok := nodecontract.ParseReport(got); !ok || len(s.Foreign) != 6 {
		t.Errorf("ParseReport: %+v %v", s, ok)
	}
	if long := nodecontract.BoundLine(strings.Repeat("x ", 2000)); len(long) != nodecontract.MaxReportLength || !strings.HasSuffix(long, "...") {
		t.Errorf("BoundLine: %d bytes", len(long))
	}
}
