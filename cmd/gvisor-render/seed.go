// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
)

// seedYAML is what the controller keeps in the shoot's namespace on the seed for the shoot's Prometheus and
// Plutono (with --shoot-monitoring), for the namespace of crs: pkg/monitoring's objects, the ones the controller
// writes, in its order.
func seedYAML(crs []*extensionsv1alpha1.ContainerRuntime, mode delivery.Mode) ([]byte, error) {
	namespace, err := shootNamespace(crs)
	if err != nil {
		return nil, err
	}
	return monitoring.ShootObjectsYAML(namespace, mode)
}

// shootNamespace is the one namespace of the ContainerRuntimes: the shoot's namespace on the seed, where the
// monitoring objects go.
func shootNamespace(crs []*extensionsv1alpha1.ContainerRuntime) (string, error) {
	if len(crs) == 0 {
		return "", errors.New("no ContainerRuntime in the file")
	}
	namespace := crs[0].Namespace
	for i, cr := range crs {
		if cr.Namespace == "" {
			return "", fmt.Errorf("ContainerRuntime %d (%s): metadata.namespace is empty: --seed needs the shoot's namespace on the seed "+
				"(shoot--<project>--<shoot>), where the objects go", i+1, cr.Name)
		}
		if cr.Namespace != namespace {
			return "", fmt.Errorf("ContainerRuntime %d (%s): metadata.namespace %s differs from %s: --seed renders one shoot's namespace, "+
				"pass the ContainerRuntimes of one shoot", i+1, cr.Name, cr.Namespace, namespace)
		}
	}
	return namespace, nil
}
