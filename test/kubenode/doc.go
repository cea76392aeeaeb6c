// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package kubenode is the real-node harness: a single-node Kubernetes cluster on this machine, with the real
// kubelet, kube-scheduler, kube-controller-manager, kube-apiserver and etcd (built from the Go module proxy by
// hack/tools/control-plane.sh), a real containerd release with its own runc shim, Debian's CNI plugins, and
// Debian's dbus-daemon as the node's system bus. The extension's pods are run by it as on a shoot's node: the
// kubelet mounts their volumes, runs their probes, projects their tokens and reports their status.
//
// # One cluster is the seed and the shoot
//
// The tests install the extension chart into this cluster (the seed's view: the extension's Deployment,
// ContainerRuntimes, ManagedResources, Clusters) and point the shoot access secret at the same API server (the
// shoot's view: the RuntimeClass, the installation DaemonSet, the nodes). gardener-resource-manager, run by the
// test, applies the ManagedResources from the cluster into the cluster.
//
// # Namespaces
//
// Everything of the node runs in private mount, network, PID and cgroup namespaces whose init is `unshare -m -n -p
// -f --mount-proc` then `unshare -C` (namespaces.go); every component joins them and the node's cgroups
// (nsenter). The node's cgroup is /gvisor-kubenode-<id> in every hierarchy of the machine; inside, each hierarchy
// shows only that subtree, so the node's cgroup "/" is its own, as on a real node: the kubelet's kubepods and the
// installer's sandbox proof (the kubelet's BestEffort parent /kubepods/besteffort) land below it, and Stop removes
// all of it. Inside, / has shared propagation (the kubelet's volume mounts need it), /run is a
// tmpfs, and directories of the node's work directory are bound over /var (the kubelet's root, pod logs, the bin
// dir /var/bin/containerruntimes, containerd's root), /etc/containerd, /opt/containerd, /run/containerd and
// /run/dbus: the node paths the installer writes through its hostPath mounts are the node's own, and the machine's
// stay untouched. The six kernel tunables the kubelet sets at start are regular files bound over /proc/sys in the
// node, holding the values it wants, so the machine's sysctls are not changed either.
//
// The network namespace has lo with two addresses, NodeIP (the node's InternalIP and the API server's advertised
// address) and KubernetesServiceIP (the kubernetes Service's ClusterIP), and the pods' CNI bridge. No kube-proxy
// runs here; since the ClusterIP is an address of the node and the API server listens on port 443, pods' in-cluster
// clients (the extension controller, the installer labelling its node) reach the API server as in a cluster.
// Nothing leaves the namespace: the test process reaches the API server by creating its sockets inside it
// (Node.Dial, used by RESTConfig), and the helm and kubectl CLIs run in it (NetCommand).
//
// # containerd restarts through systemd's D-Bus API
//
// The installer restarts containerd by asking systemd over the system bus (pkg/installer/restart). No systemd
// runs here: a stand-in in the test process owns org.freedesktop.systemd1 on the node's bus and answers
// Manager.RestartUnit("containerd.service") by really restarting the node's containerd (SIGTERM, so shims and
// sandboxes keep running, as with systemd's KillMode=process; then the same command line), then emits JobRemoved
// "done", or "failed" when containerd does not serve CRI again.
//
// # This machine's limits
//
// The machine lacks CAP_SYS_RESOURCE: containerd runs with restrict_oom_score_adj and the gVisor shim through the
// test-only wrapper of test/node (its package doc says why); the kubelet runs with oomScoreAdj 0. It is a cgroup
// v1 host without systemd: the kubelet uses cgroupfs under a private cgroup root. No registry is reachable:
// images are imported from tarballs (pause and busybox from test/node, ours from test/images) and pods use
// imagePullPolicy Never or IfNotPresent.
//
// # Stop
//
// Stop stops the kubelet, then kills the init, which kills every process in the PID namespace (control plane,
// containerd, shims, sandboxes) and so ends the mounts and the network; then it removes the cgroup root in every
// hierarchy and the work directory, releases its lease on the mount points it had to create on the machine
// (package mountpoint: the last lease removes them), and reports anything left.
package kubenode
