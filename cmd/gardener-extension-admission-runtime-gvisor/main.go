// Command gardener-extension-admission-runtime-gvisor is the gVisor extension's admission component in the garden
// cluster: a validating webhook server for core.gardener.cloud/v1beta1 Shoots that refuses a bad gVisor
// configuration when the Shoot is applied, with the controller's own rules (package pkg/admission). It talks to no
// API server: the API server calls it, so it needs no kubeconfig, no RBAC and no leader election.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor/app"
)

func main() {
	if err := app.Main(signals.SetupSignalHandler(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gardener-extension-admission-runtime-gvisor:", err)
		os.Exit(1)
	}
}
