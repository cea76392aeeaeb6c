// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package gpu is the installer's part of NVIDIA GPU nodes: it finds the node's NVIDIA devices, has the node's
// driver judged by the GPU pre-flight (gvisor-gpu-check, built from the pinned gVisor module: runsc's own
// version query and driver table) and says whether runsc's nvproxy may be on for the node's sandboxes.
//
// Why per node: in a Kubernetes pod runsc boots the sandbox from the pause container's spec, which never carries the
// GPU devices (the device plugin or CDI gives them to the pod's containers), so a GPU container reaches the driver
// only when nvproxy is on for the node's sandboxes (runsc.toml). On a node without the driver, or with one runsc
// does not support, nvproxy fails every sandbox there, GPU pod or not. So nvproxy is on exactly on the nodes whose
// driver passed the pre-flight, whatever the pool's configFlags say (runscconfig.ForNode).
//
// The pre-flight needs the driver's control device, which the installation pod's containers cannot open (no
// device cgroup access): in the DaemonSet mode it runs as a one-shot runc container started over CRI with that
// one device (CRI), on the host in the OperatingSystemConfig mode (Exec).
package gpu
