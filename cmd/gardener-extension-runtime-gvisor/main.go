// Command gardener-extension-runtime-gvisor is the seed-side controller manager of the gVisor extension: it
// reconciles ContainerRuntime resources of type gvisor into ManagedResources for the shoot (see package
// pkg/controller/containerruntime) and renews Gardener's extension heartbeat.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
)

func main() {
	if err := app.Main(signals.SetupSignalHandler(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gardener-extension-runtime-gvisor:", err)
		os.Exit(1)
	}
}
