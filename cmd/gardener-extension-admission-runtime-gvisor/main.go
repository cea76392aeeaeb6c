// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gardener-extension-admission-runtime-gvisor is the gVisor extension's admission component in the garden
// cluster: a validating webhook server for core.gardener.cloud/v1beta1 Shoots that refuses a bad gVisor
// configuration when the Shoot is applied, with the controller's own rules (package pkg/admission). It talks to no
// API server: the API server calls it, so it needs no kubeconfig, no RBAC and no leader election.
package main

import (
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/cli"
)

func main() { cli.Execute(app.Name, app.Command()) }
