// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package installertest holds the real-component fixtures of the node installer's tests: the containerd releases
// built by hack/tools/containerd.sh (GVISOR_TEST_CONTAINERD), real containerd daemons under temporary
// directories with a restarter for them, `containerd config dump`, gVisor releases with SHA512SUMS, and a hash of
// a whole host root to prove a refusal left it untouched.
//
// # Every path of a daemon is its own
//
// `go test ./...` runs the test packages at once, and several of them start daemons (pkg/installer and its
// sandbox and containerdversion packages, cmd/gvisor-installer, test/nodeagent), so any node path two daemons
// share is a race: containerd unlinks a socket file before it listens on it, and unlinks it again when it stops.
// --root, --state and --address move the daemon's root, state and gRPC socket under temporary directories (the
// CRI socket at <hostRoot>/run/containerd/containerd.sock, which the installer's verifier dials), but the configs
// under test name fixed node paths the flags do not move: containerd 2.4's default config serves ttrpc on
// /run/containerd/containerd.sock.ttrpc (1.x, 2.0 and 2.2 derive it from --address), 2.x's NRI listens on
// /var/run/nri/nri.sock, shims put their sockets in /run/containerd/s and runc its state in /run/containerd/runc,
// and every release's opt plugin creates /opt/containerd. On the machine's /run, daemons running together took
// over one another's ttrpc and NRI sockets, and a 2.x daemon starting while another bound the NRI socket exited
// at start ("failed to create socket /var/run/nri/nri.sock: ... bind: address already in use"), which is how
// TestDaemonLifecycle/2.4 failed when four pkg/installer test binaries ran at once.
//
// So Daemon.Start runs containerd in a new mount namespace whose mounts are all private (nothing propagates to
// the machine): /run is the daemon's own directory, bind-mounted and kept across restarts as a node keeps its
// /run; /opt is an overlay of the machine's /opt whose writes go to a tmpfs. The configs are not touched. Nothing
// of a daemon is written to the machine's /run (/run/containerd included) or /opt, its snapshot mounts die with
// its namespace, and its PID is containerd's (a shell mounts, then execs containerd), so Stop signals containerd.
// The temporary directories must lie outside /run and /opt, which Start checks, so that the test and the daemon
// see the same socket and config. The network namespace stays the machine's: the configs under test listen on no
// fixed TCP port (the CRI streaming server takes a free one). TestDaemonPathsArePrivate runs two daemons of each
// release at once on its default config and fails for any listening socket or opt directory they share with the
// machine or each other.
package installertest
