// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gardener-extension-runtime-gvisor is the seed-side controller manager of the gVisor extension: it
// reconciles ContainerRuntime resources of type gvisor into ManagedResources for the shoot (see package
// pkg/controller/containerruntime) and renews Gardener's extension heartbeat.
package main

import (
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/cli"
)

func main() { cli.Execute(app.BinaryName, app.Command()) }
