// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodeinstall is the one set-up of "a node with the real gVisor release installed": the node installer's
// options for a real node of package nodetest (test/node), wired as every real-node test runs the installer's real
// code path. The real release (or a test's own), runsc.toml, the node's containerd restarter and CRI verifier, the
// installer's own proof sandbox under the node's cgroup, and the installer's log, shown when the test fails.
//
// It is a package of its own, not part of test/node, so that the node harness does not depend on the installer
// it tests: a package whose internal tests import test/node (or a harness built on it, such as test/kubenode)
// does not thereby import pkg/installer. Package installer's own tests use it from the external test package
// installer_test.
package nodeinstall
