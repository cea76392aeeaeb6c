// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package admission runs the gVisor admission webhook server in-process for tests: the real binary's Run with a
// self-signed serving certificate on 127.0.0.1, and what a test needs to reach it (URL, CA bundle) and to count the
// requests it served (its own /metrics, controller-runtime's webhook request counter).
//
// webhook_test.go sends real AdmissionReviews over HTTPS; garden_test.go registers it with a real
// gardener-apiserver (Gardener's test/envtest) through the ValidatingWebhookConfiguration the application chart
// renders, and kubectl_test.go runs the operator guide's example there with the real kubectl.
// limit_bench_test.go runs the admission binary as its own process against the worst Shoots within
// gardener-apiserver's request limit (worst_test.go builds them) and reports answer time and peak memory.
package admission
