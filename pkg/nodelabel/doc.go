// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodelabel sets and removes the scheduling readiness label of the opt-in readiness gate
// (docs/readiness-gate.md) on the node the gVisor installer runs on.
//
// With the gate on, the RuntimeClass gvisor selects nodes that carry Key=Value in addition to Gardener's
// pool label, so pods with runtimeClassName gvisor are only scheduled onto nodes whose installer has
// registered and verified runsc. The installer calls Set after a successful install and Remove before it
// unregisters runsc, each with a client built by InClusterClient and the node name from $NODE_NAME (NodeNameEnv).
//
// Both send a JSON merge patch that names only this label: no read-modify-write, so no conflict with
// kubelet, the machine controller or anyone else writing the Node at the same time, and nothing else of the
// Node can be changed by accident. The installer's service account is allowed exactly that by the
// ValidatingAdmissionPolicy the charts render (charts/internal/gvisor): only this label, only "true" or
// absent, only on the node named in its pod-bound token.
package nodelabel
