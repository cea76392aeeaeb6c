// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package installertest holds the real-component fixtures of the node installer's tests: the containerd releases
// built by hack/tools/containerd.sh (GVISOR_TEST_CONTAINERD), real containerd daemons under temporary
// directories with a restarter for them, `containerd config dump`, gVisor releases with SHA512SUMS, and a hash of
// a whole host root to prove a refusal left it untouched.
package installertest
