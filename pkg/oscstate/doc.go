// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package oscstate reads, in a shoot, what gardener-node-agent has applied of a worker pool's OperatingSystemConfig
// (OSC) and whether that OSC carries the gVisor entries of the extension's OSC webhook. The health check (OSC
// delivery mode) and the ContainerRuntime controller's mode switch (docs/delivery-modes.md) decide from it, so
// both judge "node applied the OSC" the same way, and the way gardenlet itself does
// (OperatingSystemConfigUpdatedForAllWorkerPools in pkg/gardenlet/operation/botanist/worker.go):
//
//   - the pool's OSC secret: kube-system Secret labelled gardener.cloud/role=operating-system-config and
//     worker.gardener.cloud/pool=<pool>, the OSC in data key osc.yaml, its checksum in annotation
//     checksum/data-script; it is what node-agent downloads and what a new node boots with;
//   - a Node applied it when its annotation checksum/cloud-config-data equals that checksum (node-agent sets it
//     at the very end of a successful reconcile, after files were removed and containerd restarted);
//   - Nodes being replaced are skipped: label worker.gardener.cloud/gardener-node-agent-secret-name naming another
//     secret, or machine-controller-manager's PreferNoSchedule taint of a rolling update;
//   - node-agent's systemd-unit check (Gardener v1.141+) reports failed units of the OSC in the Node condition
//     SystemdUnitsReady, "<unit>: failed; ..."; the sandbox-proof unit's and its timer's failures are read from
//     it (the timer re-runs the proof, so a node that breaks after its first proof shows there too).
package oscstate
