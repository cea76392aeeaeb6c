// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package admission validates the gVisor part of core.gardener.cloud/v1beta1 Shoots in the garden cluster, so a
// shoot owner learns about a bad gVisor configuration at `kubectl apply` time instead of minutes later from the
// ContainerRuntime's ERR_CONFIGURATION_PROBLEM (Gardener's convention: docs/extensions/admission.md).
//
// The rules are NOT repeated here: every providerConfig goes through pkg/apis/gvisor/v1alpha1's Parse (strict
// decoding and the allowlist, every error at once, field paths rooted where it is told), exactly what the
// controller runs (pkg/render's Renderer.Shoot), so the admission and the controller cannot disagree. This package only adds what the Shoot has and the
// ContainerRuntime does not: the worker's CRI name, and field paths rooted at the Shoot
// (spec.provider.workers[i].cri.containerRuntimes[j].providerConfig...).
//
//   - shoot.go: ValidateShoot (create) and ValidateShootUpdate (update: only workers whose gVisor part changed).
//   - changed.go: decides whether a worker's gVisor part changed between two versions of a Shoot.
//   - handler.go: the controller-runtime admission.Handler the webhook server serves.
package admission
