// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck/general"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// managedResourceCheck is the library's ManagedResource check (applied, healthy, not progressing) for a
// ManagedResource whose name depends on the ContainerRuntime (the pool's installation) or not (the RuntimeClass).
// A fresh library check per call: the library's checker keeps its client in a field.
type managedResourceCheck struct {
	seed client.Client
	name func(*extensionsv1alpha1.ContainerRuntime) string
}

var _ healthcheck.HealthCheck = managedResourceCheck{}

func (c managedResourceCheck) Check(ctx context.Context, key types.NamespacedName) (*healthcheck.SingleCheckResult, error) {
	cr, err := readRuntime(ctx, c.seed, key)
	if err != nil {
		return nil, err
	}
	check := general.CheckManagedResource(c.name(cr))
	check.InjectSourceClient(c.seed)
	check.SetLoggerSuffix("runtime-gvisor", extensionsv1alpha1.ContainerRuntimeResource)
	return check.Check(ctx, key)
}

// SetLoggerSuffix is part of the library's interface; the library calls it on the shared instance, so it keeps
// nothing (the library check made per call gets its own).
func (managedResourceCheck) SetLoggerSuffix(string, string) {}
