// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package gpu_test is the GPU check anyone with an NVIDIA GPU can run (`make gpu-check`, root): on a real containerd
// 2.4 node in namespaces (test/node), the installer installs gVisor with its GPU pre-flight and GPU proof (the real
// gvisor-gpu-check in one-shot containers over CRI), and then the machine's own nvidia-smi, and PyTorch where the
// machine has it, run natively (runc) and in gVisor with the machine's GPUs from a CDI spec, as the GPU operator's
// device plugin hands them to a container through containerd's CDI injection. It prints a table, native beside gVisor. It needs no network and says so plainly on a machine without
// a GPU; `make test` skips it (GVISOR_GPU_CHECK is set by `make gpu-check` only).
package gpu_test
