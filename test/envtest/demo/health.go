// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// healthWait bounds the wait for the health conditions (the test stack's sync period is 2s).
const healthWait = 30 * time.Second

// healthConditions are the condition types the healthcheck controller writes, which gardenlet merges into the Shoot.
var healthConditions = []gardencorev1beta1.ConditionType{gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ShootEveryNodeReady}

// createShootAccess creates, like gardenlet, the secret "gardener" in the shoot namespace: the kubeconfig through
// which the health checks read the shoot's nodes and pods (here the demo's one API server).
func createShootAccess(ctx context.Context, s *envtest.Stack, namespace string) error {
	kubeconfig, err := os.ReadFile(s.KubeconfigPath)
	if err != nil {
		return fmt.Errorf("reading the demo's kubeconfig: %w", err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: v1beta1constants.SecretNameGardener},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
	if err := s.Client.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the shoot access secret %s/%s: %w", namespace, secret.Name, err)
	}
	return nil
}

// showHealth waits until the ContainerRuntime's health conditions are True (the ManagedResources are healthy by
// now; the first check may have run before gardener-resource-manager applied them), at most healthWait, and prints
// them as they are then.
func showHealth(ctx context.Context, s *envtest.Stack, cr *extensionsv1alpha1.ContainerRuntime) error {
	waitCtx, cancel := context.WithTimeout(ctx, healthWait)
	defer cancel()
	_ = poll(waitCtx, "health conditions of ContainerRuntime "+cr.Name, func() (bool, error) {
		if err := s.Client.Get(waitCtx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return false, err
		}
		present, healthy := true, true
		for _, t := range healthConditions {
			c := v1beta1helper.GetCondition(cr.Status.Conditions, t)
			present = present && c != nil
			healthy = healthy && c != nil && c.Status == gardencorev1beta1.ConditionTrue
		}
		return present && healthy, nil
	})
	for _, t := range healthConditions {
		if v1beta1helper.GetCondition(cr.Status.Conditions, t) == nil {
			return fmt.Errorf("ContainerRuntime %s/%s has no %s condition after %s: is the healthcheck controller running?", cr.Namespace, cr.Name, t, healthWait)
		}
	}
	var b strings.Builder
	for _, t := range healthConditions {
		c := v1beta1helper.GetCondition(cr.Status.Conditions, t)
		fmt.Fprintf(&b, "%s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	say("health of ContainerRuntime %s/%s (worker pool %q; gardenlet merges it into the Shoot's conditions):\n%s",
		cr.Namespace, cr.Name, cr.Spec.WorkerPool.Name, indent(strings.TrimSuffix(b.String(), "\n")))
	return nil
}
