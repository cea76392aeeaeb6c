package containerruntime

import (
	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
)

// poolArchitecture is the machine architecture of the ContainerRuntime's worker pool as the Shoot declares it
// (spec.provider.workers[].machine.architecture), which selects the gVisor release sums the installer gets.
// Empty when the Cluster, the pool or the field is missing: the installation then carries every architecture's
// sums and the installer picks its node's (--node-arch).
func poolArchitecture(cluster *extensionscontroller.Cluster, pool string) string {
	if cluster == nil || cluster.Shoot == nil {
		return ""
	}
	for _, w := range cluster.Shoot.Spec.Provider.Workers {
		if w.Name == pool && w.Machine.Architecture != nil {
			return *w.Machine.Architecture
		}
	}
	return ""
}
