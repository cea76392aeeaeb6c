// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package containerruntime is the seed-side controller of the gVisor extension. Gardener's extension library
// (github.com/gardener/gardener/extensions/pkg/controller/containerruntime) watches ContainerRuntime resources of
// type gvisor, keeps their finalizer and status (lastOperation, lastError with error codes), and calls the
// Actuator in this package for each lifecycle operation. Each operation is documented once, on its method:
//
//   - Reconcile / Restore (reconcile.go): deploy what render.Renderer.Shoot decides for the pool (desired.go) into
//     the shoot-wide ManagedResource "extension-runtime-gvisor" (RuntimeClass chart) and the pool's
//     "extension-runtime-gvisor-installation-<pool>" (installation chart), in the order readinessgate_order.go explains.
//   - Delete (delete.go, delete_uninstall.go): in the DaemonSet mode, uninstall from the pool's nodes, then remove
//     the ManagedResources; in the OperatingSystemConfig mode only the RuntimeClass's ManagedResource goes (the
//     nodes' cleanup is gardener-node-agent's, from the webhook's remove entry: pkg/webhook/operatingsystemconfig,
//     removal.go).
//   - ForceDelete (delete.go) and Migrate (migrate.go): release the ManagedResources (keepObjects) without waiting.
//
// Files, by job: reconcile.go, desired.go and deploy.go deploy; the removal path is delete*.go: delete.go (Delete,
// ForceDelete), delete_uninstall.go (the uninstall rollout) and delete_uninstallconfirm.go (its confirmation from the
// shoot), delete_conditions.go (the health conditions while it runs), delete_requeue.go and delete_watch.go (what
// wakes a waiting Delete), delete_removedmemory.go, and delete_reconciler.go (the Delete's status writes);
// deliveryswitch*.go hand a pool between the delivery modes; readinessgate_order.go and readinessgate_restore.go
// guard the readiness gate's objects (their deploy order, and a migration that switches the gate off); migrate.go,
// monitoring.go (the shoot's monitoring objects on the seed) and opmetrics.go (the operations counted).
//
// The ManagedResources keep the names the field's extension used, so a seed switching to this one orphans
// nothing, and are written with Gardener's managedresources helpers (deploy.go): immutable Secrets named after a
// hash of their content, the origin label, for the shoot's gardener-resource-manager. A reconcile with nothing
// changed sends no write to the API server. Everything is rendered before anything is written, so a rendering or
// validation error (ERR_CONFIGURATION_PROBLEM for a bad providerConfig, naming the field) leaves the previous
// state untouched.
//
// What a shoot gets (readiness gate and its version floor, sandbox proof, delivery mode, image vector
// targetVersion, architecture) is not decided here: Settings.Render goes to render.Renderer.Shoot, the same
// function gvisor-render prints from, and a test (shootequality_test.go) holds the two byte-identical. The
// readiness gate itself: docs/readiness-gate.md.
//
// Delivery mode (docs/delivery-modes.md): in the OperatingSystemConfig mode the pool gets no installation
// ManagedResource (gardener-node-agent installs gVisor from the pool's OSC, mutated by the extension's webhook);
// a switch of the mode hands a pool from one deliverer to the other only at a safe point, decided from the seed's
// OSCs and the shoot's OSC secret each time (deliveryswitch.go).
//
// testImageTag: the field's extension let a shoot owner set providerConfig.testImageTag to run an installation
// image of the operator's "test repository". That lets a shoot owner choose what runs as root on every node of
// the pool, which is an operator decision. This controller accepts the field (old configurations still decode)
// but ignores it and records a warning event; operators pick a different installation image for everyone through
// the image vector overwrite (IMAGEVECTOR_OVERWRITE, the chart's imageVectorOverwrite).
package containerruntime
