// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// Verdict is gvisor-gpu-check's JSON verdict.
type Verdict struct {
	Status   nodecontract.GPUStatus `json:"status"`
	Driver   string                 `json:"driver,omitempty"`
	Nearest  string                 `json:"nearest,omitempty"`
	Branches []string               `json:"branches,omitempty"`
	GVisor   string                 `json:"gvisor"`
	Message  string                 `json:"message"`
	// GPUs is how many GPUs the GPU proof saw through gVisor (the installer's, not the pre-flight's); 0: not proven.
	GPUs int `json:"-"`
}

// NVProxy says whether runsc's nvproxy is on for the node's sandboxes: only with a driver the shipped runsc
// supports (also when the GPU proof then failed: the sandboxes' nvproxy works with this driver, the proof showed
// something else wrong).
func (v Verdict) NVProxy() bool {
	return v.Status == nodecontract.GPUSupported || v.Status == nodecontract.GPUProofFailed
}

// Parse reads the one verdict gvisor-gpu-check prints; anything else (a field or status it does not know, more
// than one value) is an error naming what came.
func Parse(out []byte) (Verdict, error) {
	v, err := decodeOne[Verdict]("the GPU pre-flight's verdict", out)
	if err != nil {
		return Verdict{}, err
	}
	switch v.Status {
	case nodecontract.GPUNoDevices, nodecontract.GPUSupported, nodecontract.GPUUnsupported, nodecontract.GPUUnknown, nodecontract.GPUMalformed, nodecontract.GPUUnreadable:
		return v, nil
	}
	return Verdict{}, fmt.Errorf("the GPU pre-flight's verdict has status %q, which this installer does not know: %q", v.Status, bound(out))
}

// decodeOne reads exactly one JSON value of gvisor-gpu-check's (what names it in errors), refusing unknown fields:
// the two modules' types mirror each other, and a field one side does not know is a contract broken.
func decodeOne[T any](what string, out []byte) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("reading %s %q: %w", what, bound(out), err)
	}
	if dec.More() {
		return v, fmt.Errorf("%s is more than one value: %q", what, bound(out))
	}
	return v, nil
}

// bound keeps an error's quote of the pre-flight's output short.
func bound(out []byte) []byte {
	const limit = 512
	if len(out) > limit {
		return append(out[:limit:limit], "..."...)
	}
	return out
}
