// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
)

// deployShootMonitoring creates or updates the shoot's monitoring objects in its namespace on the seed (the shoot
// Prometheus' ScrapeConfig and PrometheusRule, the shoot Plutono's dashboards; pkg/monitoring), when the operator
// switched shoot monitoring on (Settings.ShootMonitoring). Each object is read live and written only when it
// differs from what pkg/monitoring builds, with strict field validation: a field the installed CRD does not know
// is an error naming it, not silently dropped. Every pool of the shoot deploys the same objects; a pool that
// loses the race to create or update one retries and then finds it as it wants it.
func (a *Actuator) deployShootMonitoring(ctx context.Context, namespace string) error {
	if !a.settings.ShootMonitoring {
		return nil
	}
	objs, stale, err := a.shootMonitoringObjects(namespace)
	if err != nil {
		return err
	}
	strict := client.WithFieldValidation(a.client, metav1.FieldValidationStrict)
	for _, want := range objs {
		if err := retry.OnError(retry.DefaultBackoff, lostRace, func() error {
			return a.applyIfChanged(ctx, strict, want)
		}); err != nil {
			return fmt.Errorf("deploying %s %s/%s for the shoot's monitoring%s: %w", kindOf(want), namespace, want.GetName(), noCRDHint(err), err)
		}
	}
	// After a switch of the landscape's delivery mode: the other mode's scrape would only find targets down.
	return a.deleteIfPresent(ctx, stale)
}

// shootMonitoringObjects are the monitoring objects of the shoot in namespace for the landscape's delivery mode,
// and those only another mode deploys (what a switch back leaves to remove).
func (a *Actuator) shootMonitoringObjects(namespace string) (want, stale []client.Object, err error) {
	mode, err := delivery.Parse(string(a.settings.Render.DeliveryMode))
	if err != nil {
		return nil, nil, fmt.Errorf("operator setting DeliveryMode: %w", err)
	}
	if want, err = monitoring.ShootObjects(namespace, mode); err != nil {
		return nil, nil, fmt.Errorf("building the shoot's monitoring objects: %w", err)
	}
	return want, monitoring.OtherModesObjects(namespace, mode), nil
}

// applyIfChanged creates want, or updates the object of its name when its labels (those want sets) or its content
// (spec, or a ConfigMap's data) differ from want's.
func (a *Actuator) applyIfChanged(ctx context.Context, c client.Client, want client.Object) error {
	have, ok := want.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("%T is not a client.Object", want)
	}
	if err := a.apiReader.Get(ctx, client.ObjectKeyFromObject(want), have); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		return c.Create(ctx, want.DeepCopyObject().(client.Object))
	}
	same, merged, err := mergeMonitoringObject(have, want)
	if err != nil || same {
		return err
	}
	return c.Update(ctx, merged)
}

// mergeMonitoringObject returns whether have already carries want's labels and content, and otherwise have with them (its
// metadata otherwise kept: resourceVersion, other labels, annotations).
func mergeMonitoringObject(have, want client.Object) (bool, client.Object, error) {
	h, err := runtime.DefaultUnstructuredConverter.ToUnstructured(have)
	if err != nil {
		return false, nil, err
	}
	w, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return false, nil, err
	}
	same := true
	labels := have.GetLabels()
	for k, v := range want.GetLabels() {
		if labels[k] != v {
			same = false
		}
	}
	for _, field := range []string{"spec", "data"} {
		if !equality.Semantic.DeepEqual(h[field], w[field]) {
			same = false
		}
	}
	if same {
		return true, nil, nil
	}
	for _, field := range []string{"spec", "data"} {
		if v, ok := w[field]; ok {
			h[field] = v
		} else {
			delete(h, field)
		}
	}
	merged, ok := have.DeepCopyObject().(client.Object)
	if !ok {
		return false, nil, fmt.Errorf("%T is not a client.Object", have)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(h, merged); err != nil {
		return false, nil, err
	}
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range want.GetLabels() {
		labels[k] = v
	}
	merged.SetLabels(labels)
	return false, merged, nil
}

// deleteShootMonitoring removes the shoot's monitoring objects (with its last gvisor pool). Each is read live
// first, so the Delete passes that wait for the ManagedResources do not send a delete for what is already gone.
func (a *Actuator) deleteShootMonitoring(ctx context.Context, namespace string) error {
	if !a.settings.ShootMonitoring {
		return nil
	}
	want, stale, err := a.shootMonitoringObjects(namespace)
	if err != nil {
		return err
	}
	return a.deleteIfPresent(ctx, append(want, stale...))
}

// deleteIfPresent deletes each of objs that exists, read live first.
func (a *Actuator) deleteIfPresent(ctx context.Context, objs []client.Object) error {
	for _, o := range objs {
		namespace := o.GetNamespace()
		kind := kindOf(o)
		if err := a.apiReader.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("reading %s %s/%s%s: %w", kind, namespace, o.GetName(), noCRDHint(err), err)
		}
		if err := a.client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s %s/%s: %w", kind, namespace, o.GetName(), err)
		}
	}
	return nil
}

// noCRDHint says what to do when the seed has no prometheus-operator CRDs (every Gardener seed has them: gardenlet
// deploys prometheus-operator).
func noCRDHint(err error) string {
	if meta.IsNoMatchError(err) {
		return " (the seed has no prometheus-operator CRDs: install them, or switch shoot monitoring off with the extension " +
			"chart's monitoring.shoot.enabled=false, flag --shoot-monitoring=false)"
	}
	return ""
}

func kindOf(o client.Object) string { return o.GetObjectKind().GroupVersionKind().Kind }

// deleteShootMonitoringWith removes the shoot's monitoring objects when the ManagedResources being deleted include
// the shoot-wide one (the shoot's last gvisor pool goes): they share its lifetime.
func (a *Actuator) deleteShootMonitoringWith(ctx context.Context, namespace string, managedResources []string) error {
	if !slices.Contains(managedResources, ManagedResourceName) {
		return nil
	}
	return a.deleteShootMonitoring(ctx, namespace)
}
