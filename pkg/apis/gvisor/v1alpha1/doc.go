// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package v1alpha1 is the provider configuration of a ContainerRuntime of type gvisor: the object a shoot owner
// writes into spec.provider.workers[].cri.containerRuntimes[].providerConfig.
//
// It keeps the API group, version and field names of the configuration operators already write for the original
// gardener-extension-runtime-gvisor, so existing Shoot manifests decode unchanged:
//
//	apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
//	kind: GVisorConfiguration
//	configFlags:
//	  net-raw: "true"
//
// Parse is the one way in: it decodes strictly (an unknown or misspelt field is an error naming it, never silently
// dropped) and checks every runsc flag against an allowlist with typed values (ValidateFlags, flags.go), because
// these flags end up in the runsc.toml of every node of the pool, where a bad value breaks every gVisor sandbox
// start. Every problem comes back at once, as a field.ErrorList rooted where the caller says: the controller's
// renderer (pkg/render) and the garden's admission (pkg/admission) call it alike.
package v1alpha1
