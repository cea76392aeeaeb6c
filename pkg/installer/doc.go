// Package installer puts gVisor on a node and registers runsc with containerd, safely: it is the program of the
// installation DaemonSet (cmd/gvisor-installer).
//
// Every run first computes a complete plan (verifying the release, the runsc config and the containerd config)
// and refuses, with the host byte-for-byte untouched, when anything is off. Then it applies the plan with atomic
// writes, restarts containerd only when containerd's own configuration changed, verifies over CRI that runsc is
// in effect, and restores the previous configuration (restarting again) when containerd does not come back
// healthy within a bounded time. A second run with the same input changes nothing and restarts nothing.
//
// With Options.NodeLabel (--label-node, the opt-in scheduling readiness gate) Install labels the node once runsc is
// verified, and Uninstall removes the label before it unregisters runsc (see NodeLabel).
//
// Subpackages do one job each: containerdconfig (TOML editor), binaries (release verification and copy),
// runscconfig (runsc.toml validation), restart (systemd D-Bus), verify (CRI), hostfs (atomic writes),
// refusal (the error type of refusals).
package installer
