// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionswebhook "github.com/gardener/gardener/extensions/pkg/webhook"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
)

const (
	// Name is the webhook's name; the library registers it as <Name>.<component>.extensions.gardener.cloud.
	Name = "gvisor-operatingsystemconfig"
	// Path is the webhook server's endpoint.
	Path = "/webhooks/gvisor-operatingsystemconfig"
)

// NamespaceSelector selects the namespaces the webhook is called for: shoot control plane namespaces in the seed
// (gardenlet labels them gardener.cloud/role=shoot). gardenlet labels a shoot namespace with
// extensions.gardener.cloud/<type>=true only for Extension resources (botanist.getShootRequiredExtensionTypes in
// pkg/gardenlet/operation/botanist/namespaces.go), not for ContainerRuntime types, so no label
// tells gVisor shoots apart: the Mutator returns the OSCs of other shoots unchanged after one Cluster read. In the
// DaemonSet mode ObjectSelector narrows the calls to OSCs that carry an entry of ours.
func NamespaceSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{v1beta1constants.GardenRole: v1beta1constants.GardenRoleShoot}}
}

// ObjectSelector limits the webhook to the OSCs it may change in mode: in the OperatingSystemConfig mode every
// worker pool's OSC (gardenlet labels each with its pool), because any pool may get gVisor; in the DaemonSet mode
// only those that carry an entry of ours (LabelEntry, label.go), the only ones it changes there. The zero mode is
// the OperatingSystemConfig mode, as in Options.
func ObjectSelector(mode delivery.Mode) *metav1.LabelSelector {
	requirements := []metav1.LabelSelectorRequirement{{Key: v1beta1constants.LabelWorkerPool, Operator: metav1.LabelSelectorOpExists}}
	if mode == delivery.DaemonSet {
		requirements = append(requirements, metav1.LabelSelectorRequirement{Key: LabelEntry, Operator: metav1.LabelSelectorOpExists})
	}
	return &metav1.LabelSelector{MatchExpressions: requirements}
}

// New returns the seed webhook for OperatingSystemConfigs, served by the manager's webhook server.
func New(mgr manager.Manager, ensurer *Ensurer, log logr.Logger) (*extensionswebhook.Webhook, error) {
	log = log.WithName(Name)
	types := []extensionswebhook.Type{{Obj: &extensionsv1alpha1.OperatingSystemConfig{}}}
	m := &Mutator{reader: mgr.GetAPIReader(), ensurer: ensurer}
	handler, err := extensionswebhook.NewBuilder(mgr, log).WithMutator(m, types...).Build()
	if err != nil {
		return nil, fmt.Errorf("building the %s webhook handler: %w", Name, err)
	}
	return &extensionswebhook.Webhook{
		Name:              Name,
		Target:            extensionswebhook.TargetSeed,
		Path:              Path,
		Types:             types,
		Webhook:           &admission.Webhook{Handler: handler, RecoverPanic: new(true)},
		NamespaceSelector: NamespaceSelector(),
		ObjectSelector:    ObjectSelector(ensurer.opts.DeliveryMode),
	}, nil
}

// Mutator runs the Ensurer on each reconcile OSC (Ensurer.MutateOSC: EnsureAdditionalFiles, EnsureAdditionalUnits,
// EnsureCRIConfig with the plan in the context). It does not go through genericmutator.NewMutator: that mutator
// also decodes and re-encodes kubelet.service (go-systemd's unit serializer joins gardenlet's multi-line ExecStart
// into one line) and the kubelet configuration of every OSC it sees, so a gVisor pool's nodes would restart
// kubelet for a change that is not ours. This way an OSC changes only where gVisor changes it, and OSCs gVisor does
// not concern stay byte for byte what gardenlet wrote.
type Mutator struct {
	// reader reads the Cluster from the API server, not from a cache: gardenlet updates the Cluster right before
	// the OSCs of a reconcile, and a stale Cluster would miss a pool that just got gVisor until the next update.
	// The pool's ContainerRuntime (its removal record, removal.go) is read the same way.
	reader  client.Reader
	ensurer *Ensurer
}

var _ extensionswebhook.Mutator = (*Mutator)(nil)

// Mutate implements extensionswebhook.Mutator.
func (m *Mutator) Mutate(ctx context.Context, newObj, oldObj client.Object) error {
	osc, ok := newObj.(*extensionsv1alpha1.OperatingSystemConfig)
	if !ok || osc.Spec.Purpose != extensionsv1alpha1.OperatingSystemConfigPurposeReconcile || osc.DeletionTimestamp != nil {
		return nil
	}
	var old *extensionsv1alpha1.OperatingSystemConfig
	if oldObj != nil {
		if old, ok = oldObj.(*extensionsv1alpha1.OperatingSystemConfig); !ok {
			return errors.New("the old object is not an OperatingSystemConfig")
		}
	}
	cluster, err := extensionscontroller.GetCluster(ctx, m.reader, osc.Namespace)
	if err != nil {
		return fmt.Errorf("reading the Cluster of namespace %s: %w", osc.Namespace, err)
	}
	removal, err := ReadRemovalStatus(ctx, m.reader, old)
	if err != nil {
		return fmt.Errorf("OperatingSystemConfig %s/%s: %w", osc.Namespace, osc.Name, err)
	}
	if err := m.ensurer.MutateOSCWithRemoval(ctx, cluster, osc, old, removal); err != nil {
		return fmt.Errorf("OperatingSystemConfig %s/%s: %w", osc.Namespace, osc.Name, err)
	}
	return nil
}
