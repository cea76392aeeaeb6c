// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionscontextwebhook "github.com/gardener/gardener/extensions/pkg/webhook/context"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/utils/ptr"

	gvisorv1alpha1 "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// Options are the operator's settings that shape the additions, the same for every shoot.
type Options struct {
	// SkipSandboxProof leaves out the sandbox-proof unit and its timer (the extension's --prove-sandbox=false).
	SkipSandboxProof bool
	// ReproveInterval is how often the proof timer runs the sandbox proof again (the extension's
	// --reprove-interval, render.ValidateReproveInterval); zero means render.DefaultReproveInterval.
	ReproveInterval time.Duration
	// DeliveryMode is the landscape's delivery mode; the zero value means delivery.OperatingSystemConfig (the mode
	// this webhook delivers in). In delivery.DaemonSet no pool is delivered through the OSC: the webhook then only
	// removes what an earlier OperatingSystemConfig mode added (the switch back to the DaemonSet, docs/delivery-modes.md).
	DeliveryMode delivery.Mode
	// SandboxMetrics is the landscape's default for sandbox metrics (the extension's --sandbox-metrics); a pool's
	// providerConfig.sandboxMetrics overrides it (render.Settings.SandboxMetrics).
	SandboxMetrics bool
}

// Ensurer adds gVisor to the reconcile OSC of gVisor pools (EnsureAdditionalFiles, EnsureAdditionalUnits,
// EnsureCRIConfig). These three methods have the signatures of Gardener's genericmutator.Ensurer, so that the
// Ensurer plugs into genericmutator.NewMutator alongside Gardener's NoopEnsurer (ensurer_conformance_test.go
// checks it), but the package does not import genericmutator: it links Gardener's kubelet, containerd and
// machine-controller-manager components and, through their feature gates, k8s.io/apiserver, 21 packages the
// controller initialises at every start and never runs (BENCHMARKS.md "Seed scale", "Two dependency cuts"). Its
// Ensure methods act on the plan that MutateOSC (which the webhook's Mutator calls) puts into the context:
// genericmutator does not tell an ensurer which OSC (which pool) it works on. Immutable and safe for concurrent use.
type Ensurer struct {
	renderer *render.Renderer
	opts     Options
}

// NewEnsurer returns an Ensurer rendering with renderer (render.New(imagevector.Load(version.Version)), as the
// controller does, so the image vector overwrite applies to both modes alike).
func NewEnsurer(renderer *render.Renderer, opts Options) *Ensurer {
	return &Ensurer{renderer: renderer, opts: opts}
}

// plan is what one mutation does to one OSC: add (a gVisor pool) or remove (gVisor left it), or nothing.
type plan struct {
	add    *Additions
	remove bool
	// drop: gVisor left the pool's OSC delivery and every node applied the remove entry (removal.go): ours is
	// stripped and nothing is added, not even the remove entry.
	drop bool
	// ours are the file paths and unit names we own in this OSC: stripped before anything is added.
	ours ownership
}

// ownership are the files and units of ours in an OSC, at the default binaryPath: what the webhook adds, and what
// earlier versions of it added (runsc, the shim and runsc.toml as regular files), so that an OSC written by one of
// them is taken over, not duplicated.
type ownership struct {
	files []string
	// dirs hold only files of ours (the staged release, flags and sums).
	dirs  []string
	units []string
}

func defaultOwnership() ownership {
	bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	o := ownership{
		files: []string{runscconfig.NodePath, DropInPath, bin + "/" + nodecontract.Runsc, bin + "/" + nodecontract.Shim},
		dirs:  []string{bin + "/" + nodecontract.StagedDir + "/"},
		units: []string{ReleaseUnitName, ProofUnitName, ProofTimerName, MetricCollectorUnitName, MetricServerUnitName, DebugLogsUnitName},
	}
	for _, f := range imageFiles {
		o.files = append(o.files, bin+"/"+f[0])
	}
	o.files = append(o.files, bin+"/"+MetricServerBinary, bin+"/"+GPUCheckBinary)
	return o
}

// OwnsFile reports whether the file at path (default binaryPath) is one the webhook adds or claims on a gVisor
// node, now or in an earlier version: the one answer for the webhook and the controller (package oscstate).
func OwnsFile(path string) bool { return defaultOwnership().ownsFile(path) }

// ownsFile reports whether the file at path is ours.
func (o ownership) ownsFile(path string) bool {
	return slices.Contains(o.files, path) || slices.ContainsFunc(o.dirs, func(dir string) bool { return strings.HasPrefix(path, dir) })
}

// touches reports whether the plan changes the OSC at all.
func (p *plan) touches() bool { return p != nil && (p.add != nil || p.remove || p.drop) }

type planKey struct{}

func withPlan(ctx context.Context, p *plan) context.Context {
	return context.WithValue(ctx, planKey{}, p)
}

var errNoPlan = errors.New("no gVisor plan in the context: call the Ensurer through MutateOSC or this package's Mutator, " +
	"not through genericmutator directly (it does not tell the ensurer which worker pool the OSC belongs to)")

func planFrom(ctx context.Context) (*plan, error) {
	p, ok := ctx.Value(planKey{}).(*plan)
	if !ok || p == nil {
		return nil, errNoPlan
	}
	return p, nil
}

// Additions returns what the webhook adds to the reconcile OSC of pool in cluster, and whether pool has gvisor.
func (e *Ensurer) Additions(cluster *extensionscontroller.Cluster, pool string) (*Additions, bool, error) {
	pr, ok := gvisorPool(e.opts, cluster, pool)
	if !ok {
		return nil, false, nil
	}
	add, err := e.additions(pr)
	if err != nil {
		return nil, true, err
	}
	return add, true, nil
}

// planFor decides what to do with osc (old is the stored OSC of an update, nil on create; removal is the pool's
// ContainerRuntime record, nil if none).
func (e *Ensurer) planFor(cluster *extensionscontroller.Cluster, osc, old *extensionsv1alpha1.OperatingSystemConfig, removal *gvisorv1alpha1.ContainerRuntimeStatus) (*plan, error) {
	p := &plan{ours: defaultOwnership()}
	if osc.Spec.Purpose != extensionsv1alpha1.OperatingSystemConfigPurposeReconcile || osc.DeletionTimestamp != nil {
		return p, nil // the provision OSC gets nothing; genericmutator skips deleted objects too
	}
	add, ok, err := e.Additions(cluster, osc.Labels[v1beta1constants.LabelWorkerPool])
	if err != nil {
		return nil, err
	}
	if ok {
		p.add = add
		return p, nil
	}
	if mayDropRemoval(removal, old) {
		p.drop = true
		return p, nil
	}
	p.remove = hasOurPlugin(osc) || hasOurPlugin(old)
	return p, nil
}

// MutateOSC mutates osc in place as the webhook does, for the Shoot in cluster, without a webhook server; old is
// the stored OSC of an update (nil on create). OSCs it does not concern are left untouched. It keeps a remove entry
// for good; MutateOSCWithRemoval is what the webhook calls.
func (e *Ensurer) MutateOSC(ctx context.Context, cluster *extensionscontroller.Cluster, osc, old *extensionsv1alpha1.OperatingSystemConfig) error {
	return e.MutateOSCWithRemoval(ctx, cluster, osc, old, nil)
}

// MutateOSCWithRemoval is MutateOSC with the pool's ContainerRuntime record (ReadRemovalStatus, nil if none): an
// update whose old OSC is exactly the recorded version and carries only the remove entry loses it (removal.go).
// Either way the OSC leaves with LabelEntry exactly if it carries an entry of ours (label.go).
func (e *Ensurer) MutateOSCWithRemoval(ctx context.Context, cluster *extensionscontroller.Cluster, osc, old *extensionsv1alpha1.OperatingSystemConfig, removal *gvisorv1alpha1.ContainerRuntimeStatus) error {
	p, err := e.planFor(cluster, osc, old, removal)
	if err != nil {
		return err
	}
	defer syncEntryLabel(osc)
	if !p.touches() {
		return nil
	}
	ensureCRIConfig(osc)
	ctx, gctx := withPlan(ctx, p), extensionscontextwebhook.NewInternalGardenContext(cluster)
	var oldFiles *[]extensionsv1alpha1.File
	var oldUnits *[]extensionsv1alpha1.Unit
	var oldCRI *extensionsv1alpha1.CRIConfig
	if old != nil {
		oldFiles, oldUnits, oldCRI = &old.Spec.Files, &old.Spec.Units, old.Spec.CRIConfig
	}
	if err := e.EnsureAdditionalFiles(ctx, gctx, &osc.Spec.Files, oldFiles); err != nil {
		return err
	}
	if err := e.EnsureAdditionalUnits(ctx, gctx, &osc.Spec.Units, oldUnits); err != nil {
		return err
	}
	return e.EnsureCRIConfig(ctx, gctx, osc.Spec.CRIConfig, oldCRI)
}

// ensureCRIConfig gives an OSC without criConfig the one gardenlet writes for containerd pools, so that the plugin
// entry has a place (genericmutator hands EnsureCRIConfig the pointer, which it cannot allocate).
func ensureCRIConfig(osc *extensionsv1alpha1.OperatingSystemConfig) {
	if osc.Spec.CRIConfig == nil {
		osc.Spec.CRIConfig = &extensionsv1alpha1.CRIConfig{Name: extensionsv1alpha1.CRINameContainerD}
	}
}

// EnsureAdditionalFiles replaces the files of ours with the plan's.
func (e *Ensurer) EnsureAdditionalFiles(ctx context.Context, _ extensionscontextwebhook.GardenContext, newFiles, _ *[]extensionsv1alpha1.File) error {
	p, err := planFrom(ctx)
	if err != nil || !p.touches() {
		return err
	}
	files := slices.DeleteFunc(slices.Clone(*newFiles), func(f extensionsv1alpha1.File) bool { return p.ours.ownsFile(f.Path) })
	if p.add != nil {
		files = append(files, p.add.Files...)
	}
	*newFiles = emptyAsNil(files, *newFiles)
	return nil
}

// EnsureAdditionalUnits replaces the units of ours with the plan's.
func (e *Ensurer) EnsureAdditionalUnits(ctx context.Context, _ extensionscontextwebhook.GardenContext, newUnits, _ *[]extensionsv1alpha1.Unit) error {
	p, err := planFrom(ctx)
	if err != nil || !p.touches() {
		return err
	}
	units := slices.DeleteFunc(slices.Clone(*newUnits), func(u extensionsv1alpha1.Unit) bool { return slices.Contains(p.ours.units, u.Name) })
	if p.add != nil {
		units = append(units, p.add.Units...)
	}
	*newUnits = emptyAsNil(units, *newUnits)
	return nil
}

// EnsureCRIConfig replaces every entry at PluginPath with ours: add for a gVisor pool, remove when gVisor left it,
// none once every node applied the remove (plan.drop).
func (e *Ensurer) EnsureCRIConfig(ctx context.Context, _ extensionscontextwebhook.GardenContext, cri, _ *extensionsv1alpha1.CRIConfig) error {
	p, err := planFrom(ctx)
	if err != nil || !p.touches() {
		return err
	}
	if cri == nil {
		return errors.New("the OperatingSystemConfig has no spec.criConfig to register runsc in: gVisor needs containerd")
	}
	if cri.Containerd == nil {
		if p.drop {
			return nil // no entry to strip
		}
		cri.Containerd = &extensionsv1alpha1.ContainerdConfig{}
	}
	plugins := slices.DeleteFunc(slices.Clone(cri.Containerd.Plugins), isOurPlugin)
	switch {
	case p.add != nil:
		plugins = append(plugins, *p.add.Plugin.DeepCopy())
	case p.remove:
		plugins = append(plugins, extensionsv1alpha1.PluginConfig{Op: ptr.To(extensionsv1alpha1.RemovePluginPathOperation), Path: PluginPath()})
	}
	cri.Containerd.Plugins = plugins
	return nil
}

func isOurPlugin(pc extensionsv1alpha1.PluginConfig) bool { return slices.Equal(pc.Path, PluginPath()) }

func hasOurPlugin(osc *extensionsv1alpha1.OperatingSystemConfig) bool {
	if osc == nil || osc.Spec.CRIConfig == nil || osc.Spec.CRIConfig.Containerd == nil {
		return false
	}
	return slices.ContainsFunc(osc.Spec.CRIConfig.Containerd.Plugins, isOurPlugin)
}

// emptyAsNil keeps a list that was nil nil when nothing is left, so that stripping nothing changes nothing.
func emptyAsNil[T any](out, in []T) []T {
	if len(out) == 0 && in == nil {
		return nil
	}
	return out
}
