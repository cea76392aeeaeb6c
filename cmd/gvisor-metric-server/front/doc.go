// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package front is the network-facing half of the node's gVisor metric server: an unprivileged HTTP endpoint that
// answers /metrics by asking the collector (package server, run as root next to it) over a Unix socket.
//
// The collector holds what reading sandboxes takes: root, the runsc root's state files and every sandbox's control
// socket, which offers exec, checkpoint and signal besides metrics. The front holds none of it: it runs as a user
// of its own, sees only the collector's socket, and can only make the collector scrape. It sends the collector
// nothing from its clients (no path, query, header or body): whoever reaches the front reaches one operation, a
// scrape, however the front is subverted. What the collector answers is passed on within MaxBytes.
package front
