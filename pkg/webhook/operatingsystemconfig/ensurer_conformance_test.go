// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"context"

	extensionscontextwebhook "github.com/gardener/gardener/extensions/pkg/webhook/context"
	"github.com/gardener/gardener/extensions/pkg/webhook/controlplane/genericmutator"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// genericEnsurer is what a user of genericmutator.NewMutator writes to run our Ensurer: Gardener's no-op for every
// hook, ours for the three gVisor touches. The methods are spelled out because embedding both would make them
// ambiguous, and spelling them out is what proves that ours keep genericmutator's signatures: if Gardener changes
// one, this file stops compiling.
type genericEnsurer struct {
	genericmutator.NoopEnsurer

	gvisor *osc.Ensurer
}

var _ genericmutator.Ensurer = &genericEnsurer{}

func (g *genericEnsurer) EnsureAdditionalFiles(ctx context.Context, gctx extensionscontextwebhook.GardenContext, n, o *[]extensionsv1alpha1.File) error {
	return g.gvisor.EnsureAdditionalFiles(ctx, gctx, n, o)
}

func (g *genericEnsurer) EnsureAdditionalUnits(ctx context.Context, gctx extensionscontextwebhook.GardenContext, n, o *[]extensionsv1alpha1.Unit) error {
	return g.gvisor.EnsureAdditionalUnits(ctx, gctx, n, o)
}

func (g *genericEnsurer) EnsureCRIConfig(ctx context.Context, gctx extensionscontextwebhook.GardenContext, n, o *extensionsv1alpha1.CRIConfig) error {
	return g.gvisor.EnsureCRIConfig(ctx, gctx, n, o)
}
