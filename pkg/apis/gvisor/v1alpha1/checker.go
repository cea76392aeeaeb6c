// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// MaxErrors is how many errors a Checker lists (Parse's, and the admission's for a whole Shoot); the rest are
	// counted in one more error. A shoot owner fixes the first ones and applies again; listing thousands (one per
	// unknown flag of a generated providerConfig) only made the answer cost the square of the errors.
	MaxErrors = 10
	// MaxProviderConfigBytes is the largest providerConfig Parse reads (as the API server stores it, JSON). Every
	// allowed flag with the longest values fits in less than 2 KiB; a larger one is refused with one error before
	// it is decoded, so that neither the controller nor the admission spends memory on it.
	MaxProviderConfigBytes = 16 << 10
)

// Checker checks one or more providerConfigs with one error budget: it keeps the first limit errors, counts the
// rest, names the allowed flags once (in the first unknown-flag error it keeps; later ones point there) and asks
// runsc once per distinct flag set. Parse uses one per providerConfig; the admission one per Shoot, so a Shoot
// with many bad workers costs what its size costs, not the square of its errors. Not safe for concurrent use.
type Checker struct {
	limit int
	kept  field.ErrorList
	more  int
	// allowlistAt is the field of the kept error that lists the allowed flags, nil before one is kept.
	allowlistAt *field.Path
	// runsc caches runscJudge's verdict by flag set (sorted --name=value lines): the workers of a Shoot mostly
	// share theirs, and each ask builds runsc's whole flag set (about 100 µs).
	runsc map[string][]refusal
}

// NewChecker returns a Checker that keeps at most limit errors (at least 1).
func NewChecker(limit int) *Checker {
	return &Checker{limit: max(limit, 1), runsc: map[string][]refusal{}}
}

// Add counts errs, keeping them while there is room.
func (c *Checker) Add(errs ...*field.Error) {
	for _, e := range errs {
		if len(c.kept) < c.limit {
			c.kept = append(c.kept, e)
		} else {
			c.more++
		}
	}
}

// keep reports whether an error added now would be kept; when not, it counts that error instead, so that the
// caller skips building it (its field path's String is most of an error's cost, and a Shoot may bring thousands).
func (c *Checker) keep() bool {
	if len(c.kept) < c.limit {
		return true
	}
	c.more++
	return false
}

// Count is the number of errors added, kept or not.
func (c *Checker) Count() int { return len(c.kept) + c.more }

// Errors returns the kept errors, followed, when some were not kept, by one error at summaryPath saying how many.
func (c *Checker) Errors(summaryPath *field.Path) field.ErrorList {
	if c.more == 0 {
		return c.kept
	}
	return append(slices.Clip(c.kept), field.Forbidden(summaryPath,
		fmt.Sprintf("%d more errors not listed (only the first %d are): fix these and apply again", c.more, c.limit)))
}

// unknownFlag adds the error for a flag outside the allowlist. Only the first kept one lists the allowlist: a
// providerConfig with thousands of unknown flags gets one list, not thousands.
func (c *Checker) unknownFlag(p *field.Path, name, value string) {
	if !c.keep() {
		return
	}
	if name == MetricServerFlag {
		c.Add(field.Forbidden(p, "runsc's metric-server flag is set by the extension (it must name the node's metric server): "+
			"use sandboxMetrics.enabled instead of configFlags, "+sandboxMetricsExample))
		return
	}
	detail := fmt.Sprintf("unknown or not allowed runsc flag %q; ", name)
	if c.allowlistAt == nil {
		detail += "allowed flags: " + strings.Join(AllowedFlags(), ", ")
		c.allowlistAt = p
	} else {
		detail += "the allowed flags are listed at " + c.allowlistAt.String()
	}
	c.Add(field.Invalid(p, value, detail))
}

// judge is runscJudge, asked once per distinct flag set, its refusals rooted at flagsPath.
func (c *Checker) judge(flags map[string]string, flagsPath *field.Path) field.ErrorList {
	var key strings.Builder
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		key.WriteString("--" + name + "=" + flags[name] + "\n")
	}
	refusals, seen := c.runsc[key.String()]
	if !seen {
		refusals = runscJudge(flags)
		c.runsc[key.String()] = refusals
	}
	errs := make(field.ErrorList, 0, len(refusals))
	for _, r := range refusals {
		errs = append(errs, r.at(flagsPath))
	}
	return errs
}
