// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodeagent_test proves the node side of the OperatingSystemConfig delivery mode with Gardener's real
// gardener-node-agent code (github.com/gardener/gardener pkg/nodeagent, the version in go.mod), real containerd
// releases and real gVisor sandboxes:
//
//   - node-agent's own operatingsystemconfig.Reconciler.ReconcileContainerdConfig applies the mutated OSC's
//     criConfig to a temporary node root: it runs the release's real `containerd config default` (the release's
//     directory first on PATH, as containerd's own package puts it there on a node), decodes and re-encodes the
//     file and adds the runsc runtime at the path it maps to the node's config version. The release's own
//     `containerd config dump` judges the result, and containerd restarts on it and lists runsc over CRI. The
//     remove op (gVisor leaving the pool) takes the runtime out again and containerd still starts.
//   - node-agent's real image extractor (pkg/nodeagent/registry) pulls the installation image from a real OCI
//     registry (go-containerregistry's pkg/registry on a loopback port, the image pushed with its remote package)
//     through the node's containerd, plain http by a hosts.toml under /etc/containerd/certs.d, and copies the
//     staged release (runsc, the shim, SHA512SUMS) and gvisor-installer to the OSC's file paths; the staged runsc
//     flags and the controller's sums are written as node-agent writes inline files.
//   - On the real-sandbox harness (test/node), node-agent patches the node's existing config.toml (the release's
//     default with the harness's test-machine adjustments, as an OS image may ship one); containerd restarted on it
//     starts a pod with handler runsc whose container runs on the gVisor kernel with the pool's runsc flags in
//     effect. The real `gvisor-installer prove --activate` binary (the OSC's oneshot unit's ExecStart, extracted
//     from the image), started in parallel with containerd's restart as node-agent starts units, puts the staged
//     release in the release layout, waits for runsc and succeeds; the node's layout is the real DaemonSet-mode
//     install's for the same providerConfig, file for file and byte for byte (layout_test.go); a corrupt staged
//     runsc is refused with its one-line reason; the release unit's ExecStop removes everything.
//   - TestNodeAgentReprove runs the OSC's proof unit and its timer in a real systemd (PID 1 of its own namespaces,
//     systemd_test.go), installed and started through node-agent's own D-Bus code, and reads the result with node-agent's
//     own systemd-unit check: the timer proves the node again every 10 s, a broken staged runsc turns the proof unit failed
//     in the Node's SystemdUnitsReady (what the extension's health check reads), a repaired one heals it.
//   - TestNodeAgentMetricServer runs the OSC's metric-server unit (sandbox metrics on) in the real systemd, started
//     by node-agent's D-Bus code from the binary its extractor took out of the image: confined as the unit says,
//     it serves a real gVisor pod's sandbox through a real kube-apiserver's node proxy at the path of the nodes'
//     ScrapeConfig, a real Prometheus on prometheus-operator's configuration of the OSC mode's monitoring objects
//     discovers the Node and records the pod's memory, and the server serves again after systemd restarted it from
//     a SIGKILL.
//   - BenchmarkNodeAgentApplyProven times "OSC applied" to "gVisor sandbox proven" per release.
//
// The OSCs are the ones the extension's webhook produces: pkg/webhook/operatingsystemconfig's Ensurer.MutateOSC on
// gardenlet's OSC of its osctest package (osc_test.go), the installation image pointed at the test registry by an
// image vector overwrite.
//
// What is not node-agent's code here: the systemd side of containerd (node-agent restarts containerd.service
// through D-Bus; the test restarts the harness's containerd and counts; outside TestNodeAgentReprove it runs the
// proof unit's command itself), the
// diffing of old and new OSC and hosts.toml from criConfig.containerd.registries (unexported in node-agent; the test
// writes every inline file of the OSC, extracts every imageRef file, deletes the files that left the OSC and
// writes the hosts.toml node-agent's template would), and the test machine's adjustments of test/node
// (restrict_oom_score_adj, the shim wrapper), which real nodes do not need.
//
// The extractor reads and writes fixed node paths (/etc/containerd/certs.d, /var/lib/gardener-node-agent/tmp, the
// file's destination) and mounts the image: it runs in a child process (this test binary, re-executed, see
// TestMain) in a private mount namespace in which the node root's directories are bind-mounted onto those paths
// and /var/lib is a tmpfs, so nothing is written to the machine. The child stays in the test's network namespace,
// where the registry listens on 127.0.0.1.
package nodeagent_test
