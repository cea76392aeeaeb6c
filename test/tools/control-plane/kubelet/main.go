// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command kubelet is the upstream kubelet. The real-node harness (test/kubenode) runs it so that the extension's
// pods are run by a real kubelet, with its volume, probe, status and housekeeping code, not judged as objects.
package main

import (
	"context"
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	os.Exit(cli.Run(app.NewKubeletCommand(context.Background())))
}
