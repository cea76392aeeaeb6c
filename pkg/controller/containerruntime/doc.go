// Package containerruntime is the seed-side controller of the gVisor extension. Gardener's extension library
// (github.com/gardener/gardener/extensions/pkg/controller/containerruntime) watches ContainerRuntime resources of
// type gvisor, keeps their finalizer and status (lastOperation, lastError with error codes), and calls the
// Actuator in this package for each lifecycle operation:
//
//   - Reconcile / Restore: render the RuntimeClass chart into the shoot-wide ManagedResource
//     "extension-runtime-gvisor" and the pool's installation chart into "extension-runtime-gvisor-installation-<pool>"
//     (the names the original extension used, so a seed switching to this one orphans nothing). Both are created
//     with Gardener's managedresources helpers: immutable Secrets named after a hash of their content, the origin
//     label, for the shoot's gardener-resource-manager. A reconcile with nothing changed sends no write to the API
//     server: the content-addressed Secret already exists and the ManagedResource is semantically equal.
//     Both charts are rendered before anything is written, so a rendering or validation error leaves the
//     previous state untouched.
//     With the readiness gate the admission policy (shoot-wide) is applied before the pool's RBAC it guards and
//     removed after it, when the gate is switched on or off and on delete (gateorder.go); the reconcile requeues
//     while it waits for gardener-resource-manager.
//   - Delete: first remove gVisor from the pool's nodes, which stay when the owner only removed gvisor from the
//     pool: replace the content of the pool's ManagedResource with the installation chart in uninstall mode
//     (render.ForUninstall; the same DaemonSet, so it rolls node by node from install to uninstall) and return a
//     RequeueAfterError (lastError says how far it is) until gardener-resource-manager reports it applied, healthy
//     and not progressing, i.e. every node's uninstall pod Ready; nodes deleted meanwhile leave the DaemonSet's
//     desired count and do not block. The wait is bounded by UninstallTimeout from the ContainerRuntime's deletion
//     timestamp; after it the removal goes on with a warning event (those nodes keep runsc registered). Skipped when
//     the shoot is being deleted or hibernated (its nodes go or are gone) and when the installation was never
//     applied. Then delete the pool's ManagedResource and wait (at most DeleteWaitTimeout) until
//     gardener-resource-manager has removed the DaemonSet from the shoot and the ManagedResource is gone. The
//     shoot-wide ManagedResource (the RuntimeClass; with the readiness gate also the installers' ClusterRole and
//     policy, which the uninstall needs) is deleted only after that, and only if no other gvisor ContainerRuntime
//     without a deletion timestamp remains in the namespace, decided on a live read (the API reader, not the
//     informer cache, which may not have seen a pool created a moment ago).
//   - ForceDelete: the shoot cluster is being destroyed, possibly unreachable: set keepObjects and delete the same
//     ManagedResources without waiting, so gardener-resource-manager never blocks on the shoot's API server.
//   - Migrate: set keepObjects=true on both ManagedResources, then delete them and wait until they are gone: the
//     shoot keeps its RuntimeClass and DaemonSets (nodes keep scaling out with gVisor) while the control plane
//     moves, and nothing blocks the migration. Restore on the new seed re-creates the ManagedResources, whose
//     gardener-resource-manager adopts the existing objects.
//
// A providerConfig that does not decode or validate fails with error code ERR_CONFIGURATION_PROBLEM and a message
// naming the field (the renderer's validation), before anything is written.
//
// Readiness gate (docs/readiness-gate.md): with ReadinessGate (--readiness-gate) both charts, and the uninstall, are
// rendered with the gate for shoots on Kubernetes 1.30 or later; older shoots get it off, with a log line saying why
// (the ValidatingAdmissionPolicy v1 API and node names in bound tokens arrive with 1.30).
//
// Sandbox proof: the installation is rendered with the installer's sandbox proof on (a pool's pods turn Ready only
// once a real gVisor sandbox started on their node) unless SkipSandboxProof (--prove-sandbox=false) is set.
//
// testImageTag: the original extension let a shoot owner set providerConfig.testImageTag to run an installation
// image of the operator's "test repository". That lets a shoot owner choose what runs as root on every node of
// the pool, which is an operator decision. This controller accepts the field (old configurations still decode)
// but ignores it and records a warning event; operators pick a different installation image for everyone through
// the image vector overwrite (IMAGEVECTOR_OVERWRITE, the chart's imageVectorOverwrite).
package containerruntime
