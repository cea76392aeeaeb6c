// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package gardenerfixtures builds the objects Gardener writes for a shoot by running Gardener's own code (the
// pinned github.com/gardener/gardener module) against a controller-runtime fake client, so that no test names or
// shapes them by hand and none can drift from what a seed sees when Gardener is bumped:
//
//   - Shoot: the Shoot as gardener-apiserver stores it (Gardener's v1beta1 defaulting) with the technical ID
//     gardenlet gives it (gardenerutils.ComputeTechnicalID: the shoot's namespace in the seed);
//   - Cluster, DecodedCluster: the Cluster gardenlet writes (extensions.SyncClusterResourceToSeed), and as the
//     extension library decodes it (extensionscontroller.GetCluster);
//   - ContainerRuntimes: gardenlet's ContainerRuntime component (pkg/component/extensions/containerruntime:
//     name <type>-<pool>, binaryPath, the pool's selector, the operation and timestamp annotations);
//   - OperatingSystemConfigs, OSCSecret: gardenlet's OperatingSystemConfig component
//     (pkg/component/extensions/operatingsystemconfig: names <key>-init and <key>-original, labels, annotations,
//     purpose, type, criConfig) and the pool's OSC secret gardenlet puts into the shoot
//     (nodeagent.OperatingSystemConfigSecret);
//   - NodeLabels: the labels gardenlet gives the kubelet of a pool's nodes (gardenerutils.NodeLabelsForWorkerPool).
//
// Only the shoot owner's input (the Shoot's spec: Worker, GVisor) is written here. Gardener's timestamps are
// fixed to Timestamp, so that golden files stay stable. A builder panics if Gardener's code fails: with a fake
// client that is a bug of the fixture, never a test's outcome.
package gardenerfixtures
