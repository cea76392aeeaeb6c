// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package v1alpha1 is the provider configuration of a ContainerRuntime of type gvisor: the object a shoot owner
// writes into spec.provider.workers[].cri.containerRuntimes[].providerConfig; and, in the same API group, the
// provider status the controller writes into its status.providerStatus (ContainerRuntimeStatus, status.go).
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
// dropped) and checks every runsc flag against an allowlist with typed values and path rules (ValidateFlags,
// flags.go, paths.go), then has runsc's own flag parsing and configuration validation judge the flags runsc would
// get (runsc.go: gvisor.dev/gvisor/runsc/config at GVISOR_VERSION), because these flags end up in the runsc.toml
// of every node of the pool, where a set runsc refuses breaks every gVisor sandbox start. The problems come back
// at once, as a field.ErrorList rooted where the caller says, bounded (checker.go: MaxErrors and a count of the
// rest, the allowlist named once, MaxProviderConfigBytes): the controller's renderer (pkg/render) and the garden's
// admission (pkg/admission, one Checker per Shoot) call it alike. differential_test.go holds the validator to the
// pinned runsc binary.
package v1alpha1
