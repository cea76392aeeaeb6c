// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package shootclient builds the client with which the extension reads a shoot: the health checks (installation
// pods, nodes, DaemonSets) and the delivery-mode switch (the pool's OSC secret, nodes). It reads through the shoot
// access secret gardenlet keeps in the shoot namespace on the seed, with a static REST mapper for exactly these
// kinds: the library's default (a dynamic mapper) runs API discovery against the shoot on every check of every
// ContainerRuntime.
package shootclient

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsconfigv1alpha1 "github.com/gardener/gardener/extensions/pkg/apis/config/v1alpha1"
	"github.com/gardener/gardener/extensions/pkg/util"
)

// scheme holds the only kinds the extension reads in a shoot; built once, read-only after.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// mapper is the static REST mapper of those kinds.
func mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	m.Add(corev1.SchemeGroupVersion.WithKind("Node"), meta.RESTScopeRoot)
	m.Add(corev1.SchemeGroupVersion.WithKind("Secret"), meta.RESTScopeNamespace)
	m.Add(appsv1.SchemeGroupVersion.WithKind("DaemonSet"), meta.RESTScopeNamespace)
	return m
}

// New returns a client of the shoot whose namespace on the seed is namespace, built per call so that concurrent
// reads of different shoots never share one.
func New(ctx context.Context, seed client.Client, namespace string) (client.Client, error) {
	_, c, err := util.NewClientForShoot(ctx, seed, namespace, client.Options{Scheme: scheme, Mapper: mapper()}, extensionsconfigv1alpha1.RESTOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the client of the shoot of namespace %s (secret gardener or gardener-internal): %w", namespace, err)
	}
	return c, nil
}
