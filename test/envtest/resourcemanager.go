// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"

	"github.com/gardener/gardener/pkg/api/indexer"
	resourcemanagerconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/resourcemanager/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/controller/tokenrequestor"
	resourcemanagerclient "github.com/gardener/gardener/pkg/resourcemanager/client"
	"github.com/gardener/gardener/pkg/resourcemanager/controller/garbagecollector"
	"github.com/gardener/gardener/pkg/resourcemanager/controller/health"
	"github.com/gardener/gardener/pkg/resourcemanager/controller/managedresource"
	resourcemanagerpredicate "github.com/gardener/gardener/pkg/resourcemanager/predicate"
)

// ResourceManager is gardener-resource-manager's managedresource, health, progressing, garbage-collector and
// token-requestor controllers running in-process against one API server as source and target (like a shoot's
// resource manager whose "shoot" is the same cluster).
type ResourceManager struct {
	cancel context.CancelFunc
	done   chan error
}

// ResourceManagerOptions tune StartResourceManagerWith.
type ResourceManagerOptions struct {
	// Log is the controllers' logger.
	Log logr.Logger
	// Apply, if set, selects the ManagedResources the managedresource controller applies; it leaves the others
	// alone (no finalizer, no objects). nil applies all, like the real one.
	Apply predicate.Predicate
	// HealthSyncPeriod is how often the health controller rechecks a ManagedResource's objects without a change
	// to them; 0 is 15s, which keeps the tests that wait for a condition short.
	HealthSyncPeriod time.Duration
}

// StartResourceManager starts the controllers and returns once the manager's caches are synced; they run until Stop.
func StartResourceManager(ctx context.Context, cfg *rest.Config, log logr.Logger) (*ResourceManager, error) {
	return StartResourceManagerWith(ctx, cfg, ResourceManagerOptions{Log: log})
}

// StartResourceManagerWith is StartResourceManager with options.
func StartResourceManagerWith(ctx context.Context, cfg *rest.Config, opts ResourceManagerOptions) (*ResourceManager, error) {
	rmConfig := &resourcemanagerconfigv1alpha1.ResourceManagerConfiguration{}
	resourcemanagerconfigv1alpha1.SetObjectDefaults_ResourceManagerConfiguration(rmConfig)
	// Health is re-checked on every watched object change; the period only bounds how stale a condition may get.
	rmConfig.Controllers.Health.SyncPeriod = &metav1.Duration{Duration: 15 * time.Second}
	if opts.HealthSyncPeriod > 0 {
		rmConfig.Controllers.Health.SyncPeriod = &metav1.Duration{Duration: opts.HealthSyncPeriod}
	}

	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                  resourcemanagerclient.CombinedScheme,
		Logger:                  opts.Log,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		GracefulShutdownTimeout: new(5 * time.Second),
		// controller-runtime refuses a second controller of a name in one process (for its metrics); tests that
		// start one resource manager per real node, one after the other, need a second "health" controller.
		Controller: ctrlconfig.Controller{SkipNameValidation: new(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: creating manager: %w", err)
	}
	// The health checks look up pods by node (DaemonSets on preserved nodes); the real binary adds this index too.
	if err := indexer.AddPodNodeName(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: adding pod index: %w", err)
	}
	if err := health.AddToManager(ctx, mgr, mgr, mgr, *rmConfig); err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: adding health controllers: %w", err)
	}
	// The seed's resource manager garbage-collects the immutable ManagedResource Secrets that no ManagedResource
	// references any more (a reconcile with changed content leaves the old one behind, labelled collectable).
	// On a seed objects must be 10 minutes old; a few seconds keep the tests short and still protect a Secret
	// between its creation and the ManagedResource update that references it (milliseconds apart).
	if err := (&garbagecollector.Reconciler{
		Config: resourcemanagerconfigv1alpha1.GarbageCollectorControllerConfig{
			Enabled: true, SyncPeriod: &metav1.Duration{Duration: 3 * time.Second},
		},
		Clock:                 clock.RealClock{},
		MinimumObjectLifetime: new(5 * time.Second),
	}).AddToManager(mgr, mgr); err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: adding garbage collector: %w", err)
	}
	if err := addManagedResourceController(mgr, rmConfig, opts.Apply); err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: adding managedresource controller: %w", err)
	}
	// A shoot's resource manager fills the shoot access Secrets (class shoot) of the shoot namespace with tokens of
	// ServiceAccounts it creates in the shoot: the shoot Prometheus' token, say. Here seed and shoot are one cluster.
	if err := (&tokenrequestor.Reconciler{
		ConcurrentSyncs: 1,
		Class:           new(resourcesv1alpha1.ResourceManagerClassShoot),
	}).AddToManager(mgr, mgr, mgr); err != nil {
		return nil, fmt.Errorf("gardener-resource-manager: adding token requestor: %w", err)
	}

	// ctx bounds the start only: the controllers run until Stop, so that a caller may use a signal context to
	// start and still rely on gardener-resource-manager while it cleans up after the signal.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rm := &ResourceManager{cancel: cancel, done: make(chan error, 1)}
	go func() { rm.done <- mgr.Start(runCtx) }()

	syncCtx, syncCancel := context.WithTimeout(ctx, time.Minute)
	defer syncCancel()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		return nil, errors.Join(errors.New("gardener-resource-manager: caches did not sync within 1m"), rm.Stop())
	}
	return rm, nil
}

// Stop stops the controllers and waits for the manager to return.
func (rm *ResourceManager) Stop() error {
	if rm == nil || rm.cancel == nil {
		return nil
	}
	rm.cancel()
	rm.cancel = nil
	if err := <-rm.done; err != nil {
		return fmt.Errorf("gardener-resource-manager: %w", err)
	}
	return nil
}

// addManagedResourceController adds gardener-resource-manager's managedresource controller, restricted to the
// ManagedResources apply selects if it is set (managedresourcefilter.go).
func addManagedResourceController(mgr manager.Manager, rmConfig *resourcemanagerconfigv1alpha1.ResourceManagerConfiguration, apply predicate.Predicate) error {
	r := &managedresource.Reconciler{
		Config:                    rmConfig.Controllers.ManagedResource,
		ClassFilter:               resourcemanagerpredicate.NewClassFilter(*rmConfig.Controllers.ResourceClass),
		ClusterID:                 *rmConfig.Controllers.ClusterID,
		GarbageCollectorActivated: true,
	}
	if apply == nil {
		return r.AddToManager(mgr, mgr, mgr)
	}
	return addFilteredManagedResourceController(mgr, r, apply)
}
