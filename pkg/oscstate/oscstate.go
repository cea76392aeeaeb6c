// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscstate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// Entry is what an OSC says about runsc's containerd registration (the webhook's entry at oscwebhook.PluginPath).
type Entry string

const (
	// None is no entry of ours.
	None Entry = "none"
	// Add is our add entry: runsc is registered (the OSC delivers gVisor).
	Add Entry = "add"
	// Remove is our remove entry: runsc is being unregistered (gVisor left the OSC delivery of the pool).
	Remove Entry = "remove"
)

// mcmPreferNoScheduleKey is machine-controller-manager's taint on the nodes of an old machine set during a
// rolling update (gardenlet skips such nodes in its own "OSC applied" wait).
const mcmPreferNoScheduleKey = "deployment.machine.sapcloud.io/prefer-no-schedule"

// OSC is what one OSC carries of ours.
type OSC struct {
	Entry Entry
	// Files are the paths of our files in it (binaries, runsc.toml, the drop-in claim), sorted.
	Files []string
}

// Carries reports whether the OSC delivers gVisor: our add entry and our files.
func (o OSC) Carries() bool { return o.Entry == Add && len(o.Files) > 0 }

// Clean reports whether the OSC has nothing of ours at all: no entry (not even remove) and none of our files.
func (o OSC) Clean() bool { return o.Entry == None && len(o.Files) == 0 }

// Classify reads our entry and files from osc.
func Classify(osc *extensionsv1alpha1.OperatingSystemConfig) OSC {
	res := OSC{Entry: None}
	if c := osc.Spec.CRIConfig; c != nil && c.Containerd != nil {
		for _, p := range c.Containerd.Plugins {
			if !slices.Equal(p.Path, oscwebhook.PluginPath()) {
				continue
			}
			res.Entry = Add
			if p.Op != nil && *p.Op == extensionsv1alpha1.RemovePluginPathOperation {
				res.Entry = Remove
			}
		}
	}
	for _, f := range append(slices.Clone(osc.Spec.Files), osc.Status.ExtensionFiles...) {
		if oscwebhook.OwnsFile(f.Path) {
			res.Files = append(res.Files, f.Path)
		}
	}
	slices.Sort(res.Files)
	return res
}

// Node is one node of the pool as node-agent reports it.
type Node struct {
	Name string
	// Applied is the checksum of the OSC node-agent last applied completely; empty when not reported yet.
	Applied string
	// ProofFailed is node-agent's report that our sandbox-proof unit (or its timer) failed (from SystemdUnitsReady),
	// empty if not.
	ProofFailed string
}

// Pool is the OSC state of one worker pool in the shoot.
type Pool struct {
	// SecretName and Checksum identify the pool's current OSC secret; empty SecretName: there is none (yet).
	SecretName string
	Checksum   string
	// OSC is what the secret's OSC carries of ours.
	OSC OSC
	// Nodes are the pool's nodes that are not being replaced, sorted by name.
	Nodes []Node
	// Replacing are the names of the pool's nodes being replaced (skipped in Nodes, as gardenlet skips them).
	Replacing []string
}

// Pending lists the nodes that have not applied the pool's current OSC (not reported, or another checksum).
func (p *Pool) Pending() []Node {
	var out []Node
	for _, n := range p.Nodes {
		if n.Applied != p.Checksum {
			out = append(out, n)
		}
	}
	return out
}

// AllApplied reports whether there is an OSC secret and every node applied it.
func (p *Pool) AllApplied() bool { return p.SecretName != "" && len(p.Pending()) == 0 }

// Read reads the pool's OSC secret and nodes in the shoot (shoot needs Secret and Node). The secret's OSC is
// decoded as node-agent decodes it (oscDecoder).
func Read(ctx context.Context, shoot client.Reader, pool string) (*Pool, error) {
	secret, err := poolSecret(ctx, shoot, pool)
	if err != nil {
		return nil, err
	}
	p := &Pool{OSC: OSC{Entry: None}}
	if secret != nil {
		p.SecretName = secret.Name
		p.Checksum = secret.Annotations[nodeagentconfigv1alpha1.AnnotationKeyChecksumDownloadedOperatingSystemConfig]
		osc := &extensionsv1alpha1.OperatingSystemConfig{}
		if err := runtime.DecodeInto(oscDecoder, secret.Data[nodeagentconfigv1alpha1.DataKeyOperatingSystemConfig], osc); err != nil {
			return nil, fmt.Errorf("decoding the OperatingSystemConfig in secret kube-system/%s (key %s) of worker pool %q: %w",
				secret.Name, nodeagentconfigv1alpha1.DataKeyOperatingSystemConfig, pool, err)
		}
		p.OSC = Classify(osc)
	}
	nodes := &corev1.NodeList{}
	if err := shoot.List(ctx, nodes, client.MatchingLabels{v1beta1constants.LabelWorkerPool: pool}); err != nil {
		return nil, fmt.Errorf("listing the nodes of worker pool %q in the shoot: %w", pool, err)
	}
	for _, n := range nodes.Items {
		if beingReplaced(&n, p.SecretName) {
			p.Replacing = append(p.Replacing, n.Name)
			continue
		}
		p.Nodes = append(p.Nodes, Node{
			Name:        n.Name,
			Applied:     n.Annotations[nodeagentconfigv1alpha1.AnnotationKeyChecksumAppliedOperatingSystemConfig],
			ProofFailed: proofFailure(&n),
		})
	}
	slices.SortFunc(p.Nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	return p, nil
}

// poolSecret is the pool's OSC secret; with more than one (a rolling update creates the new key's secret before the
// old one goes) the newest.
func poolSecret(ctx context.Context, shoot client.Reader, pool string) (*corev1.Secret, error) {
	list := &corev1.SecretList{}
	if err := shoot.List(ctx, list, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{
		v1beta1constants.GardenRole: v1beta1constants.GardenRoleOperatingSystemConfig, v1beta1constants.LabelWorkerPool: pool,
	}); err != nil {
		return nil, fmt.Errorf("listing the OperatingSystemConfig secrets of worker pool %q in the shoot's kube-system: %w", pool, err)
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	newest := &list.Items[0]
	for i := range list.Items[1:] {
		s := &list.Items[i+1]
		if newest.CreationTimestamp.Before(&s.CreationTimestamp) || (newest.CreationTimestamp.Equal(&s.CreationTimestamp) && s.Name > newest.Name) {
			newest = s
		}
	}
	return newest, nil
}

// beingReplaced is gardenlet's nodeToBeDeleted: the node runs an older secret of the pool (rolling update) or
// carries machine-controller-manager's PreferNoSchedule taint of an old machine set.
func beingReplaced(n *corev1.Node, secretName string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == mcmPreferNoScheduleKey && t.Effect == corev1.TaintEffectPreferNoSchedule {
			return true
		}
	}
	if v, ok := n.Labels[v1beta1constants.LabelWorkerPoolGardenerNodeAgentSecretName]; ok && secretName != "" {
		return v != secretName
	}
	return false
}

// proofFailure is our units' part of a False SystemdUnitsReady condition ("gvisor-sandbox-proof.service: failed",
// or the proof timer's "gvisor-sandbox-proof.timer: inactive but should be enabled": a node that no longer
// re-proves is not proven either), empty when the condition is missing, True, or names only other units.
func proofFailure(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type != nodeagentconfigv1alpha1.ConditionTypeSystemdUnitsReady || c.Status != corev1.ConditionFalse {
			continue
		}
		var ours []string
		for _, part := range strings.Split(c.Message, ";") {
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, oscwebhook.ProofUnitName+":") || strings.HasPrefix(part, oscwebhook.ProofTimerName+":") {
				ours = append(ours, part)
			}
		}
		return strings.Join(ours, "; ")
	}
	return ""
}
