// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	extensionscmdcontroller "github.com/gardener/gardener/extensions/pkg/controller/cmd"
	heartbeatcmd "github.com/gardener/gardener/extensions/pkg/controller/heartbeat/cmd"
	extensionscmdwebhook "github.com/gardener/gardener/extensions/pkg/webhook/cmd"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/healthcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

const (
	// Name is the extension's name: heartbeat holder identity and log name.
	Name = "runtime-gvisor"
	// DefaultLeaderElectionID matches the extension chart's default leaderElection.id.
	DefaultLeaderElectionID = "gardener-extension-runtime-gvisor-leader-election"
	// DeleteWaitTimeoutFlag bounds how long Delete waits for a pool's ManagedResource to be gone.
	DeleteWaitTimeoutFlag = "delete-wait-timeout"
	// UninstallTimeoutFlag bounds how long removing gVisor from a pool waits for its nodes' uninstall.
	UninstallTimeoutFlag = "uninstall-timeout"
	// ReadinessGateFlag switches the scheduling readiness gate on (docs/readiness-gate.md).
	ReadinessGateFlag = "readiness-gate"
	// ProveSandboxFlag switches the installer's sandbox proof (on by default) off with false.
	ProveSandboxFlag = "prove-sandbox"
	// ReproveIntervalFlag is how often each node proves gVisor again (with the sandbox proof): its installation pod
	// in the DaemonSet mode, the proof unit's timer in the OperatingSystemConfig mode.
	ReproveIntervalFlag = "reprove-interval"
	// SandboxMetricsFlag is the landscape's default for sandbox metrics (the node's gVisor metric server); a pool's
	// providerConfig.sandboxMetrics.enabled overrides it.
	SandboxMetricsFlag = "sandbox-metrics"
	// DeliveryModeFlag selects how gVisor reaches the nodes (pkg/delivery): daemonset or operatingsystemconfig.
	DeliveryModeFlag = "delivery-mode"
	// HealthCheckSyncPeriodFlag is how often the health-check controller recomputes each ContainerRuntime's conditions.
	HealthCheckSyncPeriodFlag = "healthcheck-sync-period"
	// ShootMonitoringFlag deploys each shoot's monitoring objects (ScrapeConfig, PrometheusRule, dashboards) into its
	// namespace on the seed (pkg/monitoring); it needs the prometheus-operator CRDs that every Gardener seed has.
	ShootMonitoringFlag = "shoot-monitoring"
	// PprofBindAddressFlag serves Go's pprof endpoints for diagnosis (off by default).
	PprofBindAddressFlag = "pprof-bind-address"
	// VersionFlag prints the version and exits.
	VersionFlag = "version"
)

// Options are the controller manager's command line options. Most come from Gardener's extension library, so
// the flag names and semantics are the ones every Gardener extension has.
type Options struct {
	REST       extensionscmdcontroller.RESTOptions
	Manager    extensionscmdcontroller.ManagerOptions
	Controller extensionscmdcontroller.ControllerOptions
	Reconciler extensionscmdcontroller.ReconcilerOptions
	Heartbeat  heartbeatcmd.Options
	Switches   *extensionscmdcontroller.SwitchOptions

	// GardenerVersion is the version of the gardenlet that deployed us (informational; logged at start).
	GardenerVersion string
	// DeleteWaitTimeout bounds the wait for a deleted pool's ManagedResource. It must stay below Gardener's
	// reconciliation timeout (3m) so that a stuck deletion surfaces as lastError instead of a cancelled context.
	DeleteWaitTimeout time.Duration
	// UninstallTimeout bounds how long deleting a ContainerRuntime waits for the uninstall on the pool's nodes,
	// counted from its deletion timestamp. The wait is a series of requeues, not one call, so it may exceed
	// Gardener's reconciliation timeout.
	UninstallTimeout time.Duration
	// ReadinessGate renders the scheduling readiness gate for shoots on Kubernetes 1.30 or later.
	ReadinessGate bool
	// ProveSandbox renders the installation with the installer's sandbox proof (default true): a node's pod turns
	// Ready only once a real gVisor sandbox started there.
	ProveSandbox bool
	// ReproveInterval is how often each node's idle container proves gVisor again (render.Settings.ReproveInterval).
	ReproveInterval time.Duration
	// SandboxMetrics is the landscape's default for sandbox metrics (render.Settings.SandboxMetrics).
	SandboxMetrics bool
	// DeliveryMode is how gVisor reaches a pool's nodes (delivery.DaemonSet, the default, or
	// delivery.OperatingSystemConfig).
	DeliveryMode delivery.Mode
	// HealthCheckSyncPeriod is how often the health-check controller recomputes each ContainerRuntime's
	// conditions (SystemComponentsHealthy, EveryNodeReady), each time reading the pool's nodes and pods in the shoot.
	HealthCheckSyncPeriod time.Duration
	// KubeAPIQPS and KubeAPIBurst limit the client's request rate. Gardener's RESTOptions leave client-go's
	// defaults (5 QPS, burst 10), which cap a seed with many shoots at about one ContainerRuntime per second;
	// the defaults here are gardenlet's. The API server still protects itself (API Priority and Fairness).
	KubeAPIQPS   float32
	KubeAPIBurst int
	// ShootMonitoring deploys each shoot's monitoring objects (--shoot-monitoring; the chart's
	// monitoring.shoot.enabled, on by default there).
	ShootMonitoring bool
	// PrintVersion is --version.
	PrintVersion bool
	// PprofBindAddress serves Go's net/http/pprof there (controller-runtime's manager option); empty: off.
	PprofBindAddress string
	// WebhookServer registers the OperatingSystemConfig webhook (only in that delivery mode; webhook.go).
	WebhookServer extensionscmdwebhook.ServerOptions
}

// NewOptions returns the options with their defaults. The namespaces default to LEADER_ELECTION_NAMESPACE,
// which the extension chart sets to the pod's namespace.
func NewOptions() *Options {
	ns := os.Getenv("LEADER_ELECTION_NAMESPACE")
	o := &Options{
		Manager: extensionscmdcontroller.ManagerOptions{
			LeaderElection:          true,
			LeaderElectionID:        DefaultLeaderElectionID,
			LeaderElectionNamespace: ns,
		},
		Controller:        extensionscmdcontroller.ControllerOptions{MaxConcurrentReconciles: 5},
		Heartbeat:         heartbeatcmd.Options{ExtensionName: Name, Namespace: ns, RenewIntervalSeconds: 30},
		DeleteWaitTimeout: 2 * time.Minute,
		UninstallTimeout:  5 * time.Minute,
		ProveSandbox:      true,
		ReproveInterval:   render.DefaultReproveInterval,
		DeliveryMode:      delivery.DaemonSet,
		KubeAPIQPS:        100,
		// Gardener's providers check every 30s; gardenlet's care controller reads the conditions every minute.
		HealthCheckSyncPeriod: healthcheck.DefaultSyncPeriod,
		KubeAPIBurst:          130,
		WebhookServer:         extensionscmdwebhook.ServerOptions{Namespace: os.Getenv("WEBHOOK_CONFIG_NAMESPACE")},
	}
	return o
}

// AddFlags registers every flag the controller accepts. The extension chart's Deployment passes a subset; a test
// renders the chart and parses its args with exactly this flag set.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.REST.AddFlags(fs)
	addManagerFlags(&o.Manager, fs)
	o.Controller.AddFlags(fs)
	o.Reconciler.AddFlags(fs)
	extensionscmdcontroller.PrefixFlagger("heartbeat-", &o.Heartbeat).AddFlags(fs)
	o.Switches.AddFlags(fs)
	fs.StringVar(&o.GardenerVersion, extensionscmdcontroller.GardenerVersionFlag, o.GardenerVersion,
		"Version of the gardenlet that deploys this extension (informational).")
	fs.DurationVar(&o.DeleteWaitTimeout, DeleteWaitTimeoutFlag, o.DeleteWaitTimeout,
		"After how long a deleted pool's ManagedResource (and thus the DaemonSet in the shoot) that is not gone yet is reported "+
			"stuck in the ContainerRuntime's lastError, with gardener-resource-manager's reason. Delete requeues meanwhile (it does "+
			"not wait inside the call); Migrate waits up to this long. Keep it below Gardener's reconciliation timeout (3m).")
	fs.DurationVar(&o.UninstallTimeout, UninstallTimeoutFlag, o.UninstallTimeout,
		"How long deleting a ContainerRuntime (gVisor removed from a pool whose nodes stay) waits, from its deletion "+
			"timestamp, for every node of the pool to report the uninstall done. After it the pool is removed anyway "+
			"with a warning event; nodes that did not finish keep runsc registered.")
	fs.BoolVar(&o.ReadinessGate, ReadinessGateFlag, o.ReadinessGate,
		"Render the scheduling readiness gate (docs/readiness-gate.md): the RuntimeClass also requires the label the "+
			"installer sets once runsc works. Only for shoots on Kubernetes 1.30 or later; breaks scale-up from zero.")
	fs.BoolVar(&o.ProveSandbox, ProveSandboxFlag, o.ProveSandbox,
		"Have the installer start a real gVisor sandbox on every node (after registering runsc and on every re-run) before "+
			"its pod turns Ready; a node where it does not start gets runsc unregistered again. false: Ready means runsc is registered.")
	fs.DurationVar(&o.ReproveInterval, ReproveIntervalFlag, o.ReproveInterval,
		"With the sandbox proof: how often each node starts a real gVisor sandbox again: its installation pod (and once when its idle "+
			"container starts) in the daemonset mode, the timer gvisor-sandbox-proof.timer in the operatingsystemconfig mode. A node where it fails "+
			"turns EveryNodeReady False. Whole seconds, at least 10s.")
	fs.BoolVar(&o.SandboxMetrics, SandboxMetricsFlag, o.SandboxMetrics,
		"Sandbox metrics for every gVisor pool whose providerConfig does not set sandboxMetrics.enabled (which overrides this either way): "+
			"the pool's runsc.toml gets runsc's metric-server flag and every node of the pool runs gvisor-metric-server (about 24 MB "+
			"per node), which serves the metrics of the sandboxes started from then on (docs/monitoring.md).")
	fs.Func(DeliveryModeFlag, "How gVisor reaches the nodes of a pool: daemonset (an installation DaemonSet per pool in the shoot) or "+
		"operatingsystemconfig (the extension's OperatingSystemConfig webhook adds runsc to the pool's OSC, gardener-node-agent installs "+
		"it before kubelet starts). docs/delivery-modes.md compares them.",
		func(s string) (err error) { o.DeliveryMode, err = delivery.Parse(s); return err })
	fs.Lookup(DeliveryModeFlag).DefValue = string(o.DeliveryMode)
	fs.DurationVar(&o.HealthCheckSyncPeriod, HealthCheckSyncPeriodFlag, o.HealthCheckSyncPeriod,
		"How often the healthcheck controller recomputes the SystemComponentsHealthy and EveryNodeReady conditions of each "+
			"ContainerRuntime (reading the pool's nodes and installation pods in the shoot). Keep it below gardenlet's stale-check threshold.")
	fs.BoolVar(&o.ShootMonitoring, ShootMonitoringFlag, o.ShootMonitoring,
		"Deploy into every shoot namespace with gVisor the shoot Prometheus' ScrapeConfig and PrometheusRule and the shoot Plutono's "+
			"dashboard ConfigMap for gVisor (written only when they differ, removed with the shoot's last gvisor pool). Needs the "+
			"prometheus-operator CRDs that every Gardener seed has; off by default for the bare binary, on in the extension chart.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "Queries per second the controller may send to the API server.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst of queries the controller may send to the API server above --kube-api-qps.")
	fs.BoolVar(&o.PrintVersion, VersionFlag, false, "Print the version and exit.")
	fs.StringVar(&o.PprofBindAddress, PprofBindAddressFlag, o.PprofBindAddress,
		"Serve Go's pprof endpoints (/debug/pprof/: heap, CPU profiles) on this address, e.g. 127.0.0.1:6060; empty (default): off. For diagnosis only: never expose it beyond the pod.")
	o.addWebhookFlags(fs)
}

// addManagerFlags registers Gardener's manager flags except the webhook server ones that this extension does not
// use (exposedWebhookFlags lists the ones the OperatingSystemConfig webhook needs): a flag that does nothing would
// only mislead operators.
func addManagerFlags(m *extensionscmdcontroller.ManagerOptions, fs *pflag.FlagSet) {
	all := pflag.NewFlagSet("manager", pflag.ContinueOnError)
	m.AddFlags(all)
	all.VisitAll(func(f *pflag.Flag) {
		if !strings.HasPrefix(f.Name, "webhook-") || exposedWebhookFlags[f.Name] {
			fs.AddFlag(f)
		}
	})
}

// Validate checks what the library's Complete does not, naming the flag and the fix.
func (o *Options) Validate() error {
	var errs []error
	if o.Manager.LeaderElection && o.Manager.LeaderElectionNamespace == "" {
		errs = append(errs, errors.New("--leader-election-namespace is empty: set it (or LEADER_ELECTION_NAMESPACE), or pass --leader-election=false"))
	}
	if o.heartbeatEnabled() && o.Heartbeat.Namespace == "" {
		errs = append(errs, errors.New("--heartbeat-namespace is empty: set it (or LEADER_ELECTION_NAMESPACE) to the extension's namespace, or pass --disable-controllers=heartbeat"))
	}
	if err := o.Heartbeat.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Controller.MaxConcurrentReconciles < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-reconciles must be at least 1, got %d", o.Controller.MaxConcurrentReconciles))
	}
	if o.KubeAPIQPS <= 0 || o.KubeAPIBurst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-qps (%v) and --kube-api-burst (%d) must be positive, for example 100 and 130", o.KubeAPIQPS, o.KubeAPIBurst))
	}
	if o.DeleteWaitTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--%s must be positive, got %s (for example 2m)", DeleteWaitTimeoutFlag, o.DeleteWaitTimeout))
	}
	if o.HealthCheckSyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--%s must be positive, got %s (for example 30s)", HealthCheckSyncPeriodFlag, o.HealthCheckSyncPeriod))
	}
	if err := render.ValidateReproveInterval(o.ReproveInterval); err != nil {
		errs = append(errs, fmt.Errorf("--%s: %w", ReproveIntervalFlag, err))
	}
	if o.UninstallTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--%s must be positive, got %s (for example 5m)", UninstallTimeoutFlag, o.UninstallTimeout))
	}
	if err := o.validateWebhook(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ControllerSettings are the ContainerRuntime controller's settings, resolved once from the parsed flags and passed
// unchanged through containerruntime.Config to every Actuator.
func (o *Options) ControllerSettings() containerruntime.Settings {
	return containerruntime.Settings{
		Render: render.Settings{
			ReadinessGate:    o.ReadinessGate,
			SkipSandboxProof: !o.ProveSandbox,
			ReproveInterval:  o.ReproveInterval,
			DeliveryMode:     o.DeliveryMode,
			SandboxMetrics:   o.SandboxMetrics,
		},
		DeleteWaitTimeout: o.DeleteWaitTimeout,
		UninstallTimeout:  o.UninstallTimeout,
		ShootMonitoring:   o.ShootMonitoring,
	}
}

func (o *Options) heartbeatEnabled() bool {
	enabled := false
	for _, n := range o.Switches.Enabled {
		enabled = enabled || n == heartbeatControllerName
	}
	for _, n := range o.Switches.Disabled {
		enabled = enabled && n != heartbeatControllerName
	}
	return enabled
}

// Complete completes the library options (logger, controller switches, REST config) after parsing. Flag
// errors come first; the REST config last, so that a typo is not hidden behind "no kubeconfig".
func (o *Options) Complete() error {
	for _, c := range []extensionscmdcontroller.Completer{&o.Manager, &o.Controller, &o.Reconciler, &o.Heartbeat, o.Switches, &o.WebhookServer} {
		if err := c.Complete(); err != nil {
			return err
		}
	}
	if err := o.REST.Complete(); err != nil {
		return fmt.Errorf("no cluster to connect to (pass --kubeconfig, set KUBECONFIG, or run in a pod): %w", err)
	}
	cfg := o.REST.Completed().Config
	cfg.QPS, cfg.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	return nil
}
