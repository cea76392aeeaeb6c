// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package app is the controller manager of cmd/gardener-extension-runtime-gvisor, importable so that tests run
// exactly the binary's code in-process and check the extension chart's args against the real flag set.
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionscmdcontroller "github.com/gardener/gardener/extensions/pkg/controller/cmd"
	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	"github.com/gardener/gardener/extensions/pkg/controller/heartbeat"
	gardenerhealthz "github.com/gardener/gardener/pkg/healthz"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/cli"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/healthcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controllermetrics"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// Controller names for --controllers / --disable-controllers (the library's names, as in every extension).
const (
	containerRuntimeControllerName = extensionscontainerruntimecontroller.ControllerName
	heartbeatControllerName        = heartbeat.ControllerName
	healthCheckControllerName      = healthcheck.ControllerName
)

// NewFlagSet returns options with defaults and the flag set they are bound to.
func NewFlagSet() (*Options, *pflag.FlagSet) {
	o := NewOptions()
	// One cache of shoot clients for both controllers of the one manager: the Delete's uninstall confirmation and
	// the health checks then share each shoot's client and connections.
	shoots := &sharedShootClients{}
	o.Switches = extensionscmdcontroller.NewSwitchOptions(
		extensionscmdcontroller.Switch(containerRuntimeControllerName, func(ctx context.Context, mgr manager.Manager) error {
			return addContainerRuntimeController(ctx, mgr, o, shoots.of(mgr))
		}),
		extensionscmdcontroller.Switch(heartbeatControllerName, func(_ context.Context, mgr manager.Manager) error {
			hb := o.Heartbeat.Completed()
			return heartbeat.Add(mgr, heartbeat.AddArgs{
				ExtensionName:        hb.ExtensionName,
				Namespace:            hb.Namespace,
				RenewIntervalSeconds: hb.RenewIntervalSeconds,
				Clock:                clock.RealClock{},
			})
		}),
		extensionscmdcontroller.Switch(healthCheckControllerName, func(_ context.Context, mgr manager.Manager) error {
			return healthcheck.AddToManager(mgr, healthcheck.Config{
				Controller:   o.Controller.Completed().Options(),
				SyncPeriod:   o.HealthCheckSyncPeriod,
				Mode:         o.DeliveryMode,
				ShootClients: shoots.of(mgr),
			})
		}),
	)
	fs := pflag.NewFlagSet(BinaryName, pflag.ContinueOnError)
	o.AddFlags(fs)
	stableSwitchHelp(fs)
	return o, fs
}

// BinaryName is the command's name in usage messages.
const BinaryName = "gardener-extension-runtime-gvisor"

// stableSwitchHelp rewrites the help of --controllers/--disable-controllers, which the library builds by
// iterating a map, with the controller names sorted, so that --help prints the same text on every run.
func stableSwitchHelp(fs *pflag.FlagSet) {
	names := []string{containerRuntimeControllerName, heartbeatControllerName, healthCheckControllerName}
	slices.Sort(names)
	list := "[" + strings.Join(names, " ") + "]"
	if f := fs.Lookup(extensionscmdcontroller.ControllersFlag); f != nil {
		f.Usage = "List of controllers to enable. If not set, all controllers are enabled. " + list
		f.DefValue = "[" + strings.Join(names, ",") + "]"
	}
	if f := fs.Lookup(extensionscmdcontroller.DisableFlag); f != nil {
		f.Usage = "List of controllers to disable " + list
	}
}

// Run parses args like the binary (main.go: cli.Execute with Command) and runs the controller manager until ctx is
// cancelled, leaving the process-wide loggers alone (cli.Run): for tests and the demo. --help and --version print
// to out and return nil.
func Run(ctx context.Context, args []string, out io.Writer) error {
	return cli.Run(ctx, Command(), args, out)
}

// Command is the controller manager for pkg/cli's entry points: its logger comes from the completed options, and
// the binary also tunes the GC (gc.go).
func Command() cli.Command {
	o, fs := NewFlagSet()
	return cli.Command{
		FlagSet: fs, PrintVersion: &o.PrintVersion, Validate: o.Validate,
		Setup: func() (logr.Logger, error) {
			if err := o.Complete(); err != nil {
				return logr.Logger{}, fmt.Errorf("completing options: %w", err)
			}
			return o.Manager.Completed().Logger, nil
		},
		ProcessSetup: func() { tuneGC(os.Getenv) }, // gc.go
		Serve:        func(ctx context.Context, _ logr.Logger) error { return run(ctx, o) },
	}
}

func run(ctx context.Context, o *Options) error {
	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	// The shoot's monitoring objects (--shoot-monitoring); registering the types reads and writes nothing.
	if err := monitoring.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	mgrOpts := o.Manager.Completed().Options()
	mgrOpts.Scheme = scheme
	// A new leader takes over at once after a rolling update instead of waiting for the lease to expire.
	mgrOpts.LeaderElectionReleaseOnCancel = true
	mgrOpts.PprofBindAddress = o.PprofBindAddress
	// Secrets are read by name only (the ManagedResource helpers), so no cluster-wide Secret informer: a seed
	// has many Secrets and caching them all costs memory and a list/watch on every one of them.
	mgrOpts.Client.Cache = &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}
	// The heartbeat Lease is the only Lease read through the cache; the extension chart's Role grants
	// leases only in the extension's own namespace.
	if o.Heartbeat.Namespace != "" {
		mgrOpts.Cache.ByObject = map[client.Object]cache.ByObject{
			&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{o.Heartbeat.Namespace: {}}},
		}
	}
	// What the informers keep of each object (cache.go): no managedFields, Clusters without their CloudProfile.
	configureCache(&mgrOpts)

	mgr, err := manager.New(o.REST.Completed().Config, mgrOpts)
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	log := mgr.GetLogger().WithName(Name)

	// The gvisor ContainerRuntimes' health conditions as gauges, read from the cache at each scrape.
	if err := controllermetrics.Register(metrics.Registry, controllermetrics.NewConditionCollector(mgr.GetClient(), containerruntime.Type)); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("adding healthz check: %w", err)
	}
	if err := mgr.AddHealthzCheck("informer-sync", gardenerhealthz.NewCacheSyncHealthzWithDeadline(log, clock.RealClock{}, mgr.GetCache(), gardenerhealthz.DefaultCacheSyncDeadline)); err != nil {
		return fmt.Errorf("adding healthz check: %w", err)
	}
	if err := mgr.AddReadyzCheck("informer-sync", gardenerhealthz.NewCacheSyncHealthz(mgr.GetCache())); err != nil {
		return fmt.Errorf("adding readyz check: %w", err)
	}

	if err := o.Switches.Completed().AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding controllers: %w", err)
	}
	// In both delivery modes on a seed (webhook.go says why the DaemonSet mode needs it too).
	if o.servesOSCWebhook() {
		if err := addOSCWebhook(ctx, mgr, o); err != nil {
			return err
		}
	}
	log.Info("Starting controller manager", "version", version.Version, "gardenerVersion", o.GardenerVersion,
		"readinessGate", o.ReadinessGate, "proveSandbox", o.ProveSandbox, "reproveInterval", o.ReproveInterval, "sandboxMetrics", o.SandboxMetrics, "deliveryMode", o.DeliveryMode, "uninstallTimeout", o.UninstallTimeout,
		"healthCheckSyncPeriod", o.HealthCheckSyncPeriod, "shootMonitoring", o.ShootMonitoring)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}

// addContainerRuntimeController resolves the images (images.yaml, version stamp, IMAGEVECTOR_OVERWRITE) and the gVisor
// release sums once at start, like every Gardener extension: a changed overwrite rolls the pod (the chart's checksum
// annotation).
func addContainerRuntimeController(ctx context.Context, mgr manager.Manager, o *Options, shoots *shootclient.Cache) error {
	renderer, err := render.Load(version.Version, os.Getenv(imagevector.OverrideEnv))
	if err != nil {
		return err
	}
	return containerruntime.AddToManager(ctx, mgr, containerruntime.Config{
		Controller:                o.Controller.Completed().Options(),
		IgnoreOperationAnnotation: o.Reconciler.Completed().IgnoreOperationAnnotation,
		Renderer:                  renderer,
		Settings:                  o.ControllerSettings(),
		ShootClients:              shoots,
	})
}
