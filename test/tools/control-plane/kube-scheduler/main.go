// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command kube-scheduler is the upstream kube-scheduler. The real-node harness runs it so that DaemonSet and
// Deployment pods are placed as in a cluster, node affinity and the readiness gate's label included.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
