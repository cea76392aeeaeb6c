// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package envtest runs a real control plane for the integration tests, the benchmarks and `make demo`:
// etcd and kube-apiserver through controller-runtime's envtest, kube-controller-manager as a process beside
// them, Gardener's CRDs (Cluster, ContainerRuntime, ManagedResource) and gardener-resource-manager in-process
// with the same API server as source (the "seed") and target (the "shoot").
//
// Why each piece is there:
//   - kube-apiserver validates everything our ManagedResources carry, exactly as a shoot's API server would.
//   - kube-controller-manager runs the garbage collector (gardener-resource-manager deletes with foreground
//     propagation; without a garbage collector the foregroundDeletion finalizer is never removed and every
//     deletion flow hangs), the namespace controller (namespaces can be deleted) and
//     the DaemonSet controller (it writes DaemonSet status, which gardener-resource-manager's health check reads;
//     with no nodes a DaemonSet is then healthy and fully rolled out).
//   - gardener-resource-manager's managedresource controller applies ManagedResources; its health and
//     progressing controllers set ResourcesHealthy/ResourcesProgressing (without them they stay Unknown); its
//     garbage collector removes ManagedResource Secrets that nothing references any more (Gardener's helpers
//     write immutable, content-addressed Secrets, so a changed reconcile leaves the old one behind).
//
// The binaries come from KUBEBUILDER_ASSETS (hack/tools/control-plane.sh builds them); tests get the folder
// from test/realcomponents.KubebuilderAssets.
package envtest
