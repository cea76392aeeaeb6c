// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package version holds the version stamped into every binary of this project at build time.
//
// `make build VERSION=v1.2.3` sets Version with
// -ldflags "-X github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version.Version=v1.2.3".
// A plain `go build` or `go test` leaves the development default below. Image references never use
// a development version: see package imagevector for the rule.
package version

// Version is this build's version. Overridden by the linker; never written at run time.
var Version = "v0.0.0-dev"
