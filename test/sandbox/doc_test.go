// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package sandbox_test proves on real nodes (test/node: real containerd in private namespaces, real runsc, real
// pods over containerd's CRI) what the rest of the suite only judges by configuration: after the installer's own
// code path runs, a pod with handler runsc starts and its container runs on the gVisor kernel; a runsc flag change
// reaches the next sandbox without a containerd restart; uninstall removes the handler and leaves runc working;
// and the node states the field's extension left end with a working gVisor pod. Every test runs on containerd
// 1.7, 2.0, 2.2 and 2.4 (the supported range), one subtest per release.
package sandbox_test
