// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package controllermetrics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers c on registry, replacing a collector of the same metrics that an earlier run in the same
// process registered (a restarted manager in the tests: its collector reads a stopped cache).
func Register(registry prometheus.Registerer, c prometheus.Collector) error {
	err := registry.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		registry.Unregister(already.ExistingCollector)
		err = registry.Register(c)
	}
	if err != nil {
		return fmt.Errorf("registering the controller's metrics: %w", err)
	}
	return nil
}
