// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

// WithCopyHook returns o with a hook that runs when a binary's temporary copy is complete, before it is renamed
// into place: tests freeze a run there, mid-copy as a second run sees it.
func WithCopyHook(o Options, hook func(tmp string)) Options {
	o.copyHook = hook
	return o
}
