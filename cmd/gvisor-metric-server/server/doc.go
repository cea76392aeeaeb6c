// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package server is the node's gVisor metric server: a Prometheus endpoint that serves, for every runsc
// sandbox under one runsc root, the sandbox's own metrics and its memory and CPU use.
//
// runsc's `metric-server` subcommand only execs a sidecar binary (gvisor-bin/runsc-metric-server next to runsc)
// that the gVisor Go module does not contain, so a runsc built from the module (ours: hack/tools/gvisor-release.sh)
// cannot serve metrics by itself. This package is that server, built from the same pinned module's packages
// (runsc/container, runsc/sandbox, pkg/prometheus), so it speaks exactly the control protocol of the runsc release
// it runs next to.
//
// The contract is runsc's: a sandbox exports metrics only if it was created with the `metric-server` flag (in
// runsc.toml), and a server serves a sandbox only if that flag's value equals its own address ("%RUNTIME_ROOT%"
// replaced by the root directory). The sandbox never connects to the server: the server lists the root, loads each
// sandbox's state file and asks the sandbox over its control socket. What the sandbox exports is checked with
// runsc's own verifier against the metric registration the sandbox declared at creation (a compromised sandbox
// cannot invent metrics or make counters go backwards).
//
// On top of the sandbox's metrics the server adds what cAdvisor and the kubelet cannot see inside a sandbox
// (metrics.go): the sandbox's memory as the sentry accounts it and each container's CPU time, labelled with the
// sandbox, pod and namespace.
//
// No sandbox can spoil the node's scrape (server.go): the sandboxes are asked in parallel, each within its own
// timeout and all within ScrapeBudget (below Prometheus' scrape timeout); a scrape whose request is gone asks none;
// a sandbox still answering an earlier scrape counts broken instead of being asked again. Nothing a sandbox says
// reaches the output unchecked (sandbox.go, labels.go): CPU only for containers runsc's state on the node knows, at
// most maxContainers per sandbox, and no label value gVisor's encoder would write wrongly.
package server
