// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// apply creates the seed objects and the ContainerRuntimes like gardenlet, waits for the controller and
// gardener-resource-manager, and prints what landed in the shoot.
func apply(ctx context.Context, s *envtest.Stack, mode delivery.Mode, seedObjs, crObjs []client.Object) error {
	if err := createSeedObjects(ctx, s, seedObjs); err != nil {
		return err
	}
	crs, err := createContainerRuntimes(ctx, s, crObjs)
	if err != nil {
		return err
	}
	for _, cr := range crs {
		if err := waitReconciled(ctx, s, cr); err != nil {
			return err
		}
	}
	osc := mode == delivery.OperatingSystemConfig
	if err := waitManagedResources(ctx, s, crs, osc); err != nil {
		return err
	}
	rc := &nodev1.RuntimeClass{}
	if err := s.Client.Get(ctx, client.ObjectKey{Name: "gvisor"}, rc); err != nil {
		return fmt.Errorf("the RuntimeClass gvisor is not in the shoot: %w", err)
	}
	show("RuntimeClass that landed in the shoot", rc)
	if osc {
		for _, cr := range crs {
			if err := showMutatedOSC(ctx, s.Client, cr); err != nil {
				return err
			}
		}
		say("no installation DaemonSet and no pod of the extension in the shoot (delivery mode %s)", mode)
	} else {
		for _, cr := range crs {
			if err := showInstallation(ctx, s, cr.Spec.WorkerPool.Name); err != nil {
				return err
			}
		}
	}
	for _, cr := range crs {
		if err := showHealth(ctx, s, cr); err != nil {
			return err
		}
	}
	return nil
}

// createSeedObjects creates the seed's objects (the shoot namespace, the Cluster) and, for each Cluster, the
// shoot access gardenlet keeps next to it.
func createSeedObjects(ctx context.Context, s *envtest.Stack, seedObjs []client.Object) error {
	for _, obj := range seedObjs {
		if err := s.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("applying %s: %w", describe(obj), err)
		}
		say("applied %s", describe(obj))
		if _, ok := obj.(*extensionsv1alpha1.Cluster); ok {
			if err := createShootAccess(ctx, s, obj.GetName()); err != nil {
				return err
			}
		}
	}
	return nil
}

// createContainerRuntimes creates the ContainerRuntimes annotated for a reconcile, like gardenlet, and returns
// them in file order, so that the output is the same on every run.
func createContainerRuntimes(ctx context.Context, s *envtest.Stack, crObjs []client.Object) ([]*extensionsv1alpha1.ContainerRuntime, error) {
	crs := make([]*extensionsv1alpha1.ContainerRuntime, 0, len(crObjs))
	for _, obj := range crObjs {
		cr, ok := obj.(*extensionsv1alpha1.ContainerRuntime)
		if !ok {
			return nil, fmt.Errorf("%s: only ContainerRuntimes belong in the ContainerRuntime file", describe(obj))
		}
		// gardenlet annotates what it wants reconciled; the controller runs with --ignore-operation-annotation=false.
		metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
		if err := s.Client.Create(ctx, cr); err != nil {
			return nil, fmt.Errorf("applying %s: %w", describe(cr), err)
		}
		say("applied %s (worker pool %q)", describe(cr), cr.Spec.WorkerPool.Name)
		crs = append(crs, cr)
	}
	return crs, nil
}

// waitReconciled waits until the controller reports cr's last operation Succeeded (or fails on its lastError).
func waitReconciled(ctx context.Context, s *envtest.Stack, cr *extensionsv1alpha1.ContainerRuntime) error {
	start := time.Now()
	if err := poll(ctx, "ContainerRuntime "+cr.Name+" reconciled", func() (bool, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return false, err
		}
		op := cr.Status.LastOperation
		if op != nil && op.State == gardencorev1beta1.LastOperationStateError && cr.Status.LastError != nil {
			return false, fmt.Errorf("lastError %v: %s", cr.Status.LastError.Codes, cr.Status.LastError.Description)
		}
		return op != nil && op.State == gardencorev1beta1.LastOperationStateSucceeded, nil
	}); err != nil {
		return err
	}
	op := cr.Status.LastOperation
	say("ContainerRuntime %s/%s: lastOperation %s %s (%q) after %s", cr.Namespace, cr.Name, op.Type, op.State, op.Description, time.Since(start).Round(10*time.Millisecond))
	return nil
}

// waitManagedResources waits until each pool's installation ManagedResource (none in the OSC mode: there
// gardener-node-agent installs gVisor) and each shoot namespace's shoot-wide one are healthy.
func waitManagedResources(ctx context.Context, s *envtest.Stack, crs []*extensionsv1alpha1.ContainerRuntime, osc bool) error {
	shootWide := map[string]bool{}
	for _, cr := range crs {
		ns, pool := cr.Namespace, cr.Spec.WorkerPool.Name
		if !osc {
			if err := waitHealthy(ctx, s.Client, ns, containerruntime.InstallationManagedResourceName(pool)); err != nil {
				return err
			}
		}
		if !shootWide[ns] {
			shootWide[ns] = true
			if err := waitHealthy(ctx, s.Client, ns, containerruntime.ManagedResourceName); err != nil {
				return err
			}
		}
	}
	return nil
}

// showInstallation prints pool's installation DaemonSet and the runsc.toml its installer writes.
func showInstallation(ctx context.Context, s *envtest.Stack, pool string) error {
	ds := &appsv1.DaemonSet{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-" + pool}, ds); err != nil {
		return fmt.Errorf("the installation DaemonSet of pool %s is not in the shoot: %w", pool, err)
	}
	show("DaemonSet that landed in the shoot for worker pool "+pool, ds)
	cm := &corev1.ConfigMap{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-" + pool + "-runsc"}, cm); err == nil {
		say("runsc.toml the installer writes on every node of pool %s:\n%s", pool, indent(cm.Data["runsc.toml"]))
	}
	return nil
}

// deleteAll deletes the ContainerRuntimes like gardenlet and waits until the controller has removed everything.
func deleteAll(ctx context.Context, s *envtest.Stack, crObjs []client.Object) error {
	for _, obj := range crObjs {
		if err := client.IgnoreNotFound(s.Client.Delete(ctx, obj)); err != nil {
			return fmt.Errorf("deleting %s: %w", describe(obj), err)
		}
		say("deleting %s", describe(obj))
	}
	start := time.Now()
	if err := poll(ctx, "ContainerRuntimes, DaemonSets and RuntimeClass gone", func() (bool, error) {
		for _, obj := range crObjs {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return false, client.IgnoreNotFound(err)
			}
		}
		dss := &appsv1.DaemonSetList{}
		if err := s.Client.List(ctx, dss, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation"}); err != nil {
			return false, err
		}
		err := s.Client.Get(ctx, client.ObjectKey{Name: "gvisor"}, &nodev1.RuntimeClass{})
		return len(dss.Items) == 0 && apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}); err != nil {
		return err
	}
	say("ContainerRuntimes deleted; the controller removed the ManagedResources and gardener-resource-manager the DaemonSets and the RuntimeClass (%s)", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func waitHealthy(ctx context.Context, c client.Client, ns, name string) error {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := poll(ctx, "ManagedResource "+name+" healthy", func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mr); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if applied := v1beta1helper.GetCondition(mr.Status.Conditions, resourcesv1alpha1.ResourcesApplied); applied != nil && applied.Status == gardencorev1beta1.ConditionFalse {
			return false, fmt.Errorf("gardener-resource-manager cannot apply it: %s", applied.Message)
		}
		healthy := v1beta1helper.GetCondition(mr.Status.Conditions, resourcesv1alpha1.ResourcesHealthy)
		return mr.Status.ObservedGeneration == mr.Generation && healthy != nil && healthy.Status == gardencorev1beta1.ConditionTrue, nil
	}); err != nil {
		return err
	}
	var conds []string
	for _, c := range mr.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	say("ManagedResource %s/%s (origin=%s, %d secret): %s", ns, name, mr.Labels["origin"], len(mr.Spec.SecretRefs), strings.Join(conds, ", "))
	return nil
}

// poll checks every 200ms until done, an error, or ctx ends.
func poll(ctx context.Context, what string, check func() (bool, error)) error {
	for {
		done, err := check()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// show prints obj as YAML without managedFields (bookkeeping of the API server, not content).
func show(title string, obj client.Object) {
	obj.SetManagedFields(nil)
	out, err := yaml.Marshal(obj)
	if err != nil {
		out = []byte(err.Error())
	}
	say("%s:\n%s", title, indent(string(out)))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// describe names obj as "Kind namespace/name" (or "Kind name" when cluster-scoped).
func describe(obj client.Object) string {
	kind := reflect.TypeOf(obj).Elem().Name()
	if obj.GetNamespace() == "" {
		return kind + " " + obj.GetName()
	}
	return kind + " " + obj.GetNamespace() + "/" + obj.GetName()
}
