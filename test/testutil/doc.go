// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package testutil holds the few helpers every test package of this module needs: polling for a condition
// (Eventually), failing on an error (Must), a free loopback port (FreePort) and golden-file comparison (Golden).
// It imports nothing of this module, so any test can use it.
package testutil
