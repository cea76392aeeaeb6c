// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package seedbench measures a ContainerRuntime controller at seed scale on the real control plane of
// test/envtest (etcd, kube-apiserver, kube-controller-manager, gardener-resource-manager): shoot namespaces, each
// with a Cluster carrying a realistic ~100 KB CloudProfile, ten other components' ManagedResources
// (othercomponents.go), and gvisor ContainerRuntimes per shoot (make bench-seed: 50 shoots x 3 pools, then 100 x 5);
// gardener-resource-manager health-syncs at gardenlet's period for a shoot's (resourcemanager_test.go). Every API
// request of a controller is counted from kube-apiserver's audit log, per phase (requests.go). The controller runs as a separate process, so that its peak RSS (VmHWM) and CPU seconds
// (utime+stime) are its own: our binary (built from ./cmd/gardener-extension-runtime-gvisor) and, when
// GVISOR_FIELD_EXTENSION names its binary (hack/tools/field-extension.sh builds it from its public source), the
// field's extension, one after the other against the same control plane with the same objects and flags. Each
// binary is dropped from the page cache before it starts (pagecache.go), so that all start from disk, as on a seed.
//
// It is a benchmark, never part of `make test`: `make bench-seed` runs it. Results: BENCHMARKS.md, "Seed scale".
package seedbench
