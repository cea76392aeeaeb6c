// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"context"
	"testing"

	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
)

// BenchmarkMutateOSC is one admission of a gVisor pool's OSC (render of the pool's installation chart included),
// of another pool's (returned unchanged) and of the removal. go test -bench . -benchmem ./pkg/webhook/...
func BenchmarkMutateOSC(b *testing.B) {
	e := newEnsurer(b, osc.Options{})
	withGVisor := osctest.Cluster(osctest.Shoot(true, osctest.ProviderConfig))
	without := osctest.Cluster(osctest.Shoot(false, ""))
	installed := osctest.OSC(osctest.GVisorPool)
	if err := e.MutateOSC(context.Background(), withGVisor, installed, nil); err != nil {
		b.Fatal(err)
	}
	for name, c := range map[string]struct {
		pool     string
		old      bool
		withGVis bool
	}{
		"gvisor-pool": {pool: osctest.GVisorPool, withGVis: true},
		"other-pool":  {pool: osctest.OtherPool, withGVis: true},
		"removal":     {pool: osctest.GVisorPool, old: true},
	} {
		b.Run(name, func(b *testing.B) {
			cl := without
			if c.withGVis {
				cl = withGVisor
			}
			in := osctest.OSC(c.pool)
			old := in
			if c.old {
				old = installed
			}
			b.ReportAllocs()
			for b.Loop() {
				o := in.DeepCopy()
				if err := e.MutateOSC(context.Background(), cl, o, old); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
