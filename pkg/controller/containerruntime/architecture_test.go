// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"slices"
	"strings"
	"testing"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestPoolArchitectureSelectsReleaseSums: the installation of a pool carries the gVisor release
// sums of the pool's machine architecture as the Shoot declares it, and every architecture's when the Cluster does
// not say (no Shoot, pool not listed, architecture unset).
func TestPoolArchitectureSelectsReleaseSums(t *testing.T) {
	r := devRenderer(t)
	shoot := func(workers ...gardencorev1beta1.Worker) *extensionscontroller.Cluster {
		return clusterOf(shootOf("1.33.4", workers...))
	}
	worker := func(name string, arch *string) gardencorev1beta1.Worker {
		w := gardenerfixtures.Worker(name, gardenerfixtures.GVisor(nil))
		w.Machine.Architecture = arch
		return w
	}
	cr := poolAContainerRuntime()
	for name, tc := range map[string]struct {
		cluster *extensionscontroller.Cluster
		want    string
	}{
		"arm64 pool":         {shoot(worker("pool-b", ptr.To("amd64")), worker("pool-a", ptr.To("arm64"))), "arm64"},
		"amd64 pool":         {shoot(worker("pool-a", ptr.To("amd64"))), "amd64"},
		"architecture unset": {shoot(worker("pool-a", nil)), "amd64,arm64"},
		"pool not in Shoot":  {shoot(worker("pool-b", ptr.To("arm64"))), "amd64,arm64"},
		"no Cluster":         {nil, "amd64,arm64"},
	} {
		a := NewActuator(ActuatorOptions{Renderer: r})
		_, pool, err := a.desired(logr.Discard(), cr, tc.cluster, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inst := pool.Installation
		var got []string
		for _, o := range inst.Objects() {
			if cm, ok := o.(*corev1.ConfigMap); ok {
				for k := range cm.Data {
					if a, ok := strings.CutPrefix(k, "SHA512SUMS."); ok {
						got = append(got, a)
					}
				}
			}
		}
		slices.Sort(got)
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: the installation carries sums for %v, want %s", name, got, tc.want)
		}
	}
}
