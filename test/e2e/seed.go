// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// seedSystem900Value is the value gardenlet gives the PriorityClass gardener-system-900 on every seed (Gardener
// pkg/component/seed/system); the extension chart's Deployment uses it.
const seedSystem900Value = 999998900

// PrepareSeed makes the node cluster look like a seed to the extension: Gardener's CRDs (Cluster,
// ContainerRuntime, ManagedResource, ... from the pinned Gardener module's example/seed-crds) and the
// PriorityClass the extension chart's Deployment names.
func PrepareSeed(ctx context.Context, n *kubenode.Node) error {
	paths, err := envtest.GardenerCRDPaths()
	if err != nil {
		return err
	}
	if _, err := crenvtest.InstallCRDs(n.RESTConfig(), crenvtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}); err != nil {
		return fmt.Errorf("installing Gardener's CRDs: %w", err)
	}
	pc := &schedulingv1.PriorityClass{
		ObjectMeta:  metav1.ObjectMeta{Name: v1beta1constants.PriorityClassNameSeedSystem900},
		Value:       seedSystem900Value,
		Description: "PriorityClass for Seed system components",
	}
	if err := n.Client().Create(ctx, pc); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the PriorityClass %s: %w", pc.Name, err)
	}
	return nil
}
