// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package operatingsystemconfig is the extension's OperatingSystemConfig (OSC) mutating webhook: the second
// delivery mode (delivery.OperatingSystemConfig; the default stays the installation DaemonSet). For the reconcile
// OSC of a worker pool that has gvisor among its container runtimes it adds, and gardener-node-agent applies before
// kubelet starts:
//
//   - the staged release under <binaryPath>/gvisor/staged (nodecontract.StagedDir): runsc, containerd-shim-runsc-v1
//     and SHA512SUMS as content.imageRef from the installation image, the pool's runsc flags table and the
//     controller's sums inline; all three are what the DaemonSet mode's installation chart carries, from the
//     renderer (render.PoolObjects.Node); and gvisor-installer (imageRef) in the binaryPath, which activates them;
//   - /etc/containerd/conf.d/gvisor-runsc.toml, a comment-only claim of the DaemonSet installer's drop-in
//     (DropInPath), so that a switch from the DaemonSet mode leaves no second, unowned runsc registration;
//   - the runsc runtime under spec.criConfig.containerd.plugins (pluginPath, op add);
//   - the oneshot unit gvisor-sandbox-proof.service (ProofUnitName), which puts the staged release in the release
//     layout exactly as the DaemonSet's installer does and proves it (gvisor-installer prove --activate), and the
//     timer gvisor-sandbox-proof.timer (ProofTimerName) that runs it again every re-proof interval, unless the
//     operator switched the proof off;
//   - gvisor-release.service (ReleaseUnitName), whose ExecStop removes the release layout when gVisor leaves the pool.
//
// The node side of this contract (the paths, the plugin entry, the unit and the flags of `gvisor-installer prove`)
// is judged by test/nodeagent with gardener-node-agent's real code, real containerd and a real gVisor sandbox;
// docs/delivery-modes.md says which component owns which node path in either mode.
//
// OSCs of pools without gvisor (and of shoots without it) are returned unchanged, byte for byte, and a gVisor
// pool's OSC changes only in what gVisor adds: the webhook's Mutator runs the Ensurer itself instead of through
// genericmutator.NewMutator, which would re-encode every OSC's kubelet.service and kubelet configuration (see Mutator).
//
// Mutation is idempotent and deterministic: entries of ours (by path, by unit name) are removed first and then
// appended in a fixed order, so mutating a mutated OSC again yields the same object; entries of others keep
// their order (plugin entries are applied by node-agent in order, so reordering them could change their meaning).
//
// Removal. When gVisor leaves a pool, gardenlet's next OSC no longer gets our additions. node-agent does not diff
// plugin entries: it applies each entry to the existing /etc/containerd/config.toml, so a runsc table it once
// added stays there unless an entry removes it. Hence, while the OLD OSC (the stored one of an update) carried an
// entry of ours at pluginPath, add or remove, the new one gets {op: remove, path: pluginPath}. It is kept (each
// update's old OSC carries it again) until the ContainerRuntime controller records that every node applied it
// (removal.go), or for the lifetime of that OSC object: a node that applies the OSC late still unregisters runsc,
// and a remove of an absent path changes nothing that matters: node-agent sets the key to nil
// (structuredmap.SetMapEntry in containerd_config.go), which its TOML encoding leaves out, under the runtimes
// table that containerd's default config already has. The node-side tests judge this with real node-agent code.
// A new OSC object (gardenlet names them per pool and configuration hash) means new machines, which never had
// runsc. Our files simply leave the OSC: node-agent deletes files that were in the previous OSC and are not in
// the new one itself (computeFileDiffs puts them into changes.Files.Deleted, removeDeletedFiles deletes them:
// pkg/nodeagent/controller/operatingsystemconfig/changes.go and reconciler.go in Gardener), and units
// likewise (removeDeletedUnits stops and deletes them).
//
// Scope. An OSC leaves the webhook labelled LabelEntry exactly while it carries an entry of ours (label.go); in the
// DaemonSet mode the registration selects only such OSCs (ObjectSelector), so that a webhook no replica answers
// (failurePolicy Fail) holds up only the writes of OSCs in the middle of a switch back, not every pool's OSC on the
// seed (docs/delivery-modes.md, "The webhook's availability").
//
// The pool decision (gvisorPool) is one small function so that further rules (a per-pool delivery mode switch)
// go in one place.
package operatingsystemconfig
