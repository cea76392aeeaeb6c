// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package controllermetrics is the extension controller's own metrics beyond controller-runtime's defaults, on
// controller-runtime's registry (served on --metrics-bind-address and scraped by the seed Prometheus through the
// pod's prometheus.io annotations): the gvisor ContainerRuntimes' health conditions per shoot and pool, read from
// the manager's cache at each scrape (no state of its own), and the actuator's operations by result.
package controllermetrics
