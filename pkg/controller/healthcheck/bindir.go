// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// ConditionBinDirClean is the condition type of binDirCheck. gardenlet merges only the condition types it knows
// (SystemComponentsHealthy, EveryNodeReady, ...) into the Shoot's status, so this one stays on the ContainerRuntime:
// a foreign shim-named file in the bin dir is worth an operator's look, but it may belong to another container
// runtime extension of the same node, and must not make the shoot unhealthy. (EveryNodeReady cannot carry it: the
// library writes a True condition with a fixed message.)
const ConditionBinDirClean = "BinDirClean"

// binDirCheck computes BinDirClean from the installers' reports (package report): True when no installer of the
// pool found a runtime-named file in the bin dir that it did not write; False naming the nodes and files.
func binDirCheck(reads *shootReads) poolCheck {
	return poolCheck{reads: reads, result: func(pool string, _ []corev1.Node, pods []corev1.Pod) *healthcheck.SingleCheckResult {
		return binDirResult(pool, pods)
	}}
}

// binDirResult: `foreign shim-named files in the bin dir of 1 of 3 nodes of worker pool "a" ...: node-1
// (/var/bin/containerruntimes/containerd-shim-runc-v2)`, at most maxNamedNodes named, then "and N more".
func binDirResult(pool string, pods []corev1.Pod) *healthcheck.SingleCheckResult {
	type nodeFiles struct{ node, files string }
	var found []nodeFiles
	reported := 0
	for i := range pods {
		r, ok := InstallerReport(&pods[i])
		if !ok {
			continue
		}
		reported++
		if len(r.Foreign) > 0 {
			found = append(found, nodeFiles{TargetNode(&pods[i]), strings.Join(r.Foreign, ", ")})
		}
	}
	if len(found) == 0 {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue}
	}
	slices.SortFunc(found, func(a, b nodeFiles) int { return strings.Compare(a.node, b.node) })
	var b strings.Builder
	fmt.Fprintf(&b, "foreign shim-named files in the bin dir of %d of %d reporting nodes of worker pool %q, left untouched by the "+
		"gVisor installer but first on containerd's PATH (run as root for every pod of that runtime); remove them unless another "+
		"container runtime extension installed them: ", len(found), reported, pool)
	named := make([]string, len(found))
	for i, f := range found {
		named[i] = fmt.Sprintf("%s (%s)", f.node, bound(f.files))
	}
	b.WriteString(nameNodes(named))
	return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionFalse, Detail: b.String()}
}

// InstallerReport is the report of the pod's last successful installer run (package report): the termination
// message of its installer container, an init container that exited 0 (state.terminated), or, of an installer
// that ran as the pod's main container, its previous run's (lastState.terminated). ok is false when the pod has
// none (still installing, failed, or an installer older than the report).
func InstallerReport(p *corev1.Pod) (nodecontract.Report, bool) {
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if cs.Name != render.InstallerContainerName {
			continue
		}
		for _, t := range []*corev1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
			if t == nil || t.ExitCode != 0 {
				continue
			}
			if r, ok := nodecontract.ParseReport(t.Message); ok {
				return r, true
			}
		}
	}
	return nodecontract.Report{}, false
}
