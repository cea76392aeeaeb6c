// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// PodSubnet is the range of the node's pod network (a bridge with an uplink through the guest's NAT to 10.0.2.2).
const PodSubnet = "10.244.1.0/24"

// Provision says what a node gets before its first workload, as a machine image and Gardener's node agent give a
// node: containerd and its runc shim, crictl, and images.
type Provision struct {
	// Containerd is a folder with containerd, ctr and containerd-shim-runc-v2 of one release (hack/tools/containerd.sh).
	Containerd string
	// Crictl is crictl's binary (hack/tools/crictl.sh).
	Crictl string
	// Images are image archives imported into containerd's k8s.io namespace (nothing is ever pulled).
	Images []string
	// SandboxImage replaces the pause image of containerd's default configuration (registry.k8s.io/pause), as
	// Gardener's node agent sets its own; it must be among Images.
	SandboxImage string
}

// provisionScript installs the binaries from the share, writes containerd's default configuration for its release
// with runc's SystemdCgroup = true (the systemd cgroup driver: what Gardener's node agent gives every node) and the
// pod network, starts containerd through systemd and imports the images.
const provisionScript = `
mountpoint -q /mnt/host || mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=1048576 host /mnt/host
install -m 0755 /mnt/host/containerd/containerd /mnt/host/containerd/ctr /mnt/host/containerd/containerd-shim-runc-v2 /usr/local/bin/
install -m 0755 /mnt/host/crictl /usr/local/bin/crictl
mkdir -p /etc/containerd /etc/cni/net.d
containerd config default >/etc/containerd/config.toml.new
grep -q 'SystemdCgroup = false' /etc/containerd/config.toml.new || { echo "containerd's default config has no 'SystemdCgroup = false' to turn on"; exit 1; }
sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' /etc/containerd/config.toml.new
grep -q 'registry.k8s.io/pause:' /etc/containerd/config.toml.new || { echo "containerd's default config names no registry.k8s.io/pause image to replace"; exit 1; }
sed -i 's|registry.k8s.io/pause:[0-9.]*|%s|' /etc/containerd/config.toml.new
mv /etc/containerd/config.toml.new /etc/containerd/config.toml
cat >/etc/cni/net.d/10-pods.conflist <<CNI
{"cniVersion": "1.0.0", "name": "pods", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
CNI
systemctl start containerd
for i in $(seq 60); do crictl --timeout 10s info >/dev/null 2>&1 && break; sleep 1; done
crictl --timeout 10s info >/dev/null
%s
`

// Provision installs what p names on the node and starts containerd; see provisionScript.
func (n *Node) Provision(ctx context.Context, p Provision) error {
	t0 := time.Now()
	if p.SandboxImage == "" {
		return fmt.Errorf("provisioning the VM node: Provision.SandboxImage is empty: name the pause image of Provision.Images")
	}
	for _, b := range []string{"containerd", "ctr", "containerd-shim-runc-v2"} {
		if err := n.AddFile("containerd/"+b, filepath.Join(p.Containerd, b)); err != nil {
			return err
		}
	}
	if err := n.AddFile("crictl", p.Crictl); err != nil {
		return err
	}
	var imports []string
	for i, img := range p.Images {
		name := fmt.Sprintf("images/%d-%s", i, filepath.Base(img))
		if err := n.AddFile(name, img); err != nil {
			return err
		}
		imports = append(imports, "ctr -n k8s.io images import "+ShareDir+"/"+name+" >/dev/null")
	}
	if out, err := n.Run(ctx, fmt.Sprintf(provisionScript, p.SandboxImage, PodSubnet, strings.Join(imports, "\n"))); err != nil {
		return fmt.Errorf("provisioning the VM node: %w", err)
	} else if strings.TrimSpace(out) != "" {
		n.logf("provision: %s", strings.TrimSpace(out))
	}
	n.logf("provisioned (containerd, crictl, %d images) in %.1fs", len(p.Images), time.Since(t0).Seconds())
	return nil
}
