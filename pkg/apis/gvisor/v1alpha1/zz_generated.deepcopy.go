// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Code written by hand in the shape deepcopy-gen produces; keep it in step with types.go.

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *GVisorConfiguration) DeepCopyInto(out *GVisorConfiguration) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	if in.ConfigFlags != nil {
		in, out := &in.ConfigFlags, &out.ConfigFlags
		*out = make(map[string]string, len(*in))
		for key, val := range *in {
			(*out)[key] = val
		}
	}
	if in.SandboxMetrics != nil {
		in, out := &in.SandboxMetrics, &out.SandboxMetrics
		*out = new(SandboxMetrics)
		**out = **in
	}
	if in.TestImageTag != nil {
		in, out := &in.TestImageTag, &out.TestImageTag
		*out = new(string)
		**out = **in
	}
}

// DeepCopy returns a deep copy of the receiver.
func (in *GVisorConfiguration) DeepCopy() *GVisorConfiguration {
	if in == nil {
		return nil
	}
	out := new(GVisorConfiguration)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *GVisorConfiguration) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out. in must be non-nil.
func (in *SandboxMetrics) DeepCopyInto(out *SandboxMetrics) {
	*out = *in
}

// DeepCopy returns a deep copy of the receiver.
func (in *SandboxMetrics) DeepCopy() *SandboxMetrics {
	if in == nil {
		return nil
	}
	out := new(SandboxMetrics)
	in.DeepCopyInto(out)
	return out
}
