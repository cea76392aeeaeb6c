// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"fmt"
	"strings"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// proofTimer is the timer that proves the node again every interval, as the DaemonSet mode's idle container does
// (gvisor-idle reprove): a node whose runsc breaks after its first proof (a deleted or corrupted binary, a kernel
// or containerd change) turns its proof unit failed, which gardener-node-agent's systemd-unit check puts into the
// Node's SystemdUnitsReady condition and the health check onto the ContainerRuntime's EveryNodeReady; the next
// successful proof heals both. node-agent installs timers like its own logrotate.timer: it
// writes, enables and starts the unit, and starts it again when the content (the interval) changes.
//
// OnUnitInactiveSec counts from the end of the last proof, failed or not, so proofs never overlap and a slow
// proof does not shorten the pause between two. It needs one finished proof as its base: node-agent starts the
// proof unit with the timer, and at boot multi-user.target does. AccuracySec=1s: systemd's default of one minute
// would stretch a short interval by up to a minute. The interval is rendered in whole seconds, the unit both
// systemd and render.ValidateReproveInterval speak.
func proofTimer(interval time.Duration) extensionsv1alpha1.Unit {
	every := fmt.Sprintf("%ds", int64(interval/time.Second))
	content := strings.Join([]string{
		"[Unit]",
		"Description=gVisor sandbox proof again " + every + " after the last (gardener-extension-runtime-gvisor)",
		"",
		"[Timer]",
		"OnUnitInactiveSec=" + every,
		"AccuracySec=1s",
		"",
		"[Install]",
		"WantedBy=timers.target",
		"",
	}, "\n")
	return extensionsv1alpha1.Unit{
		Name:    ProofTimerName,
		Command: ptr.To(extensionsv1alpha1.CommandStart),
		Enable:  ptr.To(true),
		Content: &content,
	}
}

// reproveInterval is the operator's interval, or the DaemonSet mode's default.
func (e *Ensurer) reproveInterval() time.Duration {
	if e.opts.ReproveInterval == 0 {
		return render.DefaultReproveInterval
	}
	return e.opts.ReproveInterval
}
