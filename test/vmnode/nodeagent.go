// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"net"
	"path"
	"time"

	"github.com/Masterminds/semver/v3"
	"k8s.io/client-go/tools/clientcmd"

	extensionsv1alpha1helper "github.com/gardener/gardener/pkg/api/extensions/v1alpha1/helper"
	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig/original/components/nodeagent"
)

// NodeAgent says how Gardener's gardener-node-agent runs on the node: as the unit Gardener's own component writes
// (nodeagent.UnitContent) with the configuration it generates (nodeagent.ComponentConfig, nodeagent.Files), reading
// its pool's OperatingSystemConfig secret from the cluster whose API server listens on Config.Network's loopback.
type NodeAgent struct {
	// Binary is gardener-node-agent's binary (hack/tools/node-agent.sh).
	Binary string
	// Kubeconfig holds node-agent's client credentials and the cluster's CA, pointed at HostIP like Join.Kubeconfig.
	Kubeconfig []byte
	// SecretName is the pool's OSC secret in kube-system (the pool's key, gardenerfixtures.PoolOSCs.SecretName).
	SecretName string
	// KubernetesVersion is the shoot's, which node-agent writes on the Node once it applied the OSC.
	KubernetesVersion *semver.Version
	// Hostname is the node's host name, which node-agent finds its Node by (label kubernetes.io/hostname): the
	// Node's name, as on Gardener's machines.
	Hostname string
}

// StartNodeAgent installs gardener-node-agent as Gardener's provisioning does (the binary in /opt/bin, its
// configuration, the cluster's CA, its kubeconfig, the machine's name, its unit) and starts it: from then on
// node-agent applies the pool's OSC secret to the node through the node's systemd, as on a Gardener node before
// its kubelet starts. The unit is enabled, so node-agent starts again at every boot.
func (n *Node) StartNodeAgent(ctx context.Context, a NodeAgent) error {
	t0 := time.Now()
	kubeconfig, port, err := guestKubeconfig(a.Kubeconfig)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.Load(a.Kubeconfig)
	if err != nil {
		return err
	}
	ca := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].CertificateAuthorityData
	config := nodeagent.ComponentConfig(a.SecretName, a.KubernetesVersion, "https://"+net.JoinHostPort(HostIP, port), nil)
	files, err := nodeagent.Files(config)
	if err != nil {
		return fmt.Errorf("gardener-node-agent's configuration: %w", err)
	}
	if len(files) != 1 || files[0].Content.Inline == nil {
		return fmt.Errorf("gardener-node-agent's component returned %d files, want its configuration file only", len(files))
	}
	// Its name carries node-agent's version (nodeagenthelper.GetConfigFilePath), which the binary and this package
	// read from the same Go module: quoted, because an unstamped build's version holds shell characters.
	configData, err := extensionsv1alpha1helper.Decode(files[0].Content.Inline.Encoding, []byte(files[0].Content.Inline.Data))
	if err != nil {
		return fmt.Errorf("decoding gardener-node-agent's configuration: %w", err)
	}
	share := map[string][]byte{
		"node-agent/config.yaml":  configData,
		"node-agent/kubeconfig":   kubeconfig,
		"node-agent/ca.crt":       ca,
		"node-agent/unit.service": []byte(nodeagent.UnitContent() + "\n"),
	}
	for name, data := range share {
		if err := n.writeShare(name, data); err != nil {
			return err
		}
	}
	if err := n.AddFile("node-agent/gardener-node-agent", a.Binary); err != nil {
		return err
	}
	script := fmt.Sprintf(`
hostnamectl set-hostname %[1]s
install -D -m 0755 /mnt/host/node-agent/gardener-node-agent %[2]s
install -D -m 0600 /mnt/host/node-agent/config.yaml %[3]s
install -D -m 0644 /mnt/host/node-agent/ca.crt %[4]s
install -D -m 0600 /mnt/host/node-agent/kubeconfig %[5]s
echo %[1]s >%[6]s
install -m 0644 /mnt/host/node-agent/unit.service /etc/systemd/system/%[7]s
systemctl daemon-reload
systemctl enable --now %[7]s 2>&1
`, a.Hostname, path.Join(nodeagentconfigv1alpha1.BinaryDir, "gardener-node-agent"), shellQuote(files[0].Path),
		nodeagentconfigv1alpha1.ClusterCAFilePath, nodeagentconfigv1alpha1.KubeconfigFilePath,
		nodeagentconfigv1alpha1.MachineNameFilePath, nodeagentconfigv1alpha1.UnitName)
	if out, err := n.Run(ctx, script); err != nil {
		return fmt.Errorf("starting gardener-node-agent on the VM node: %w\n%s", err, out)
	}
	n.logf("gardener-node-agent installed and started in %.1fs", time.Since(t0).Seconds())
	return nil
}
