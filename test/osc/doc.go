// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package osc tests the extension's OperatingSystemConfig webhook on a real control plane (test/envtest: etcd,
// kube-apiserver, kube-controller-manager, Gardener's OperatingSystemConfig CRD): the extension runs in-process
// through the binary's entry point (app.Run) in the OperatingSystemConfig delivery mode, serves the webhook on
// loopback with the certificate Gardener's webhook library generates, and registers it through the
// MutatingWebhookConfiguration the library renders. The tests then write Clusters and OSCs the way gardenlet does
// and read back what kube-apiserver stored.
package osc
