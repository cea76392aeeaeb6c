// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package healthcheck is the health-check controller of ContainerRuntimes of type gvisor, built on Gardener's
// extension health-check library (extensions/pkg/controller/healthcheck). It writes two conditions on every
// ContainerRuntime, with the types gardenlet's care controller merges into the Shoot's status:
//
//   - SystemComponentsHealthy: the shoot-wide ManagedResource (RuntimeClass) and the pool's installation
//     ManagedResource are applied, healthy and not progressing (the library's ManagedResource check);
//   - EveryNodeReady: every node of the pool has a Ready installation pod. When not, the message names the
//     nodes (at most maxNamedNodes, then "and N more") with the reason the installer gave: its container's
//     termination message (one stable line, see cmd/gvisor-installer), else the kubelet's waiting or
//     terminated reason (ImagePullBackOff, CrashLoopBackOff, ...).
//
// A third condition, BinDirClean (bindir.go), names the nodes whose installer reported foreign shim-named files in
// the bin dir (its report, package pkg/installer/report, read from the installer container's termination message).
// gardenlet merges only the condition types above into the Shoot, so this one stays on the ContainerRuntime: such
// a file may belong to another container runtime extension and must not make the shoot unhealthy.
//
// The library skips ContainerRuntimes that are being deleted; while a pool is being uninstalled the
// ContainerRuntime controller's Delete writes the conditions instead (pkg/controller/containerruntime), and once
// the ContainerRuntime is gone its conditions are gone with it.
//
// The checks keep no per-call state: the library shares one check instance between concurrent reconciles of
// different shoots, so a shoot client injected into the instance (the library's TargetClient) could be used for
// the wrong shoot. Each Check builds its shoot client itself, with the library's util.NewClientForShoot.
package healthcheck
