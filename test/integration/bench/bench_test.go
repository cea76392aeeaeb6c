// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package bench measures the controller on the real control plane (test/envtest): reconcile throughput of the
// controller manager as shipped (the binary, built here, with its default 5 workers and Gardener's extension
// library) and the API writes of a
// reconcile with nothing to change. gardener-resource-manager is left out so that it does not compete for the
// two CPUs: the figures are our controller's, with the API server it needs. Results: BENCHMARKS.md, "Controller".
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

var shared struct {
	once   sync.Once
	stack  *envtest.Stack
	binDir string
	err    error
}

func stack(b *testing.B) *envtest.Stack {
	b.Helper()
	assets := realcomponents.KubebuilderAssets(b)
	shared.once.Do(func() {
		// The binary, not app.Run in-process: its logs go to its own file instead of between benchmark lines,
		// and its CPU and memory are not counted as the benchmark's.
		dir, err := os.MkdirTemp("", "gvisor-bench-")
		if err != nil {
			shared.err = err
			return
		}
		shared.binDir = dir
		binary := filepath.Join(dir, "gardener-extension-runtime-gvisor")
		build := exec.Command("go", "build", "-o", binary, "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor")
		if out, err := build.CombinedOutput(); err != nil {
			shared.err = fmt.Errorf("building the controller: %w\n%s", err, out)
			return
		}
		// The controller as shipped: the test stack's short health-check period (for tests that watch conditions
		// change) is set back to the binary's own default.
		_, fs := app.NewFlagSet()
		shared.stack, shared.err = envtest.StartStack(context.Background(), envtest.StackOptions{
			Options:                envtest.Options{AssetsDir: assets, Audit: true},
			WithoutResourceManager: true,
			ControllerBinary:       binary,
			ControllerArgs:         []string{"--healthcheck-sync-period=" + fs.Lookup("healthcheck-sync-period").DefValue},
		})
	})
	if shared.err != nil {
		b.Fatalf("starting the control plane: %v", shared.err)
	}
	return shared.stack
}

func TestMain(m *testing.M) {
	// envtest logs through controller-runtime's global logger; its errors come back as errors anyway.
	logf.SetLogger(logr.Discard())
	code := m.Run()
	if shared.stack != nil {
		if err := shared.stack.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}
	if shared.binDir != "" {
		_ = os.RemoveAll(shared.binDir)
	}
	os.Exit(code)
}

var namespaces atomic.Int64

// newShootNamespace creates a shoot namespace with its Cluster and shoot access secret.
func newShootNamespace(b *testing.B, c client.Client) string {
	b.Helper()
	shoot := gardenerfixtures.Shoot("bench", fmt.Sprintf("n%d", namespaces.Add(1)), "1.34.1")
	ns := gardenerfixtures.Namespace(shoot)
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	if err := c.Create(ctx, gardenerfixtures.Cluster(shoot)); err != nil {
		b.Fatal(err)
	}
	// The shoot access secret gardenlet keeps there ("the shoot" is the same API server): the health checks and
	// the Delete's confirmation of the uninstall read the shoot through it.
	kubeconfig, err := os.ReadFile(shared.stack.KubeconfigPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Create(ctx, gardenerfixtures.ShootAccessSecret(ns, kubeconfig)); err != nil {
		b.Fatal(err)
	}
	return ns
}

// gvisorWorkers are n worker pools p0, p1, ... with gvisor.
func gvisorWorkers(n int) []gardencorev1beta1.Worker {
	workers := make([]gardencorev1beta1.Worker, n)
	for i := range workers {
		workers[i] = gardenerfixtures.Worker(fmt.Sprintf("p%d", i), gardenerfixtures.GVisor(nil))
	}
	return workers
}

// BenchmarkReconcileThroughput creates a few hundred pools' ContainerRuntimes at once (as gardenlet does for a
// seed's shoots) and measures how fast the controller manager brings them to lastOperation Succeeded, then how
// fast it deletes them again.
func BenchmarkReconcileThroughput(b *testing.B) {
	for _, pools := range []int{300} {
		b.Run(fmt.Sprintf("pools=%d", pools), func(b *testing.B) {
			s := stack(b)
			var reconciled, deleted time.Duration
			for range b.N {
				b.StopTimer()
				ns := newShootNamespace(b, s.Client)
				crs := gardenerfixtures.ContainerRuntimes(ns, v1beta1constants.GardenerOperationReconcile, gvisorWorkers(pools)...)
				b.StartTimer()
				start := time.Now()
				parallel(b, pools, func(i int) error { return s.Client.Create(context.Background(), crs[i]) })
				waitAll(b, s.Client, ns, pools, func(cr *extensionsv1alpha1.ContainerRuntime) bool {
					op := cr.Status.LastOperation
					return op != nil && op.State == "Succeeded" && cr.Annotations[v1beta1constants.GardenerOperation] == ""
				})
				reconciled += time.Since(start)

				start = time.Now()
				if err := s.Client.DeleteAllOf(context.Background(), &extensionsv1alpha1.ContainerRuntime{}, client.InNamespace(ns)); err != nil {
					b.Fatal(err)
				}
				waitAll(b, s.Client, ns, 0, nil)
				deleted += time.Since(start)
			}
			total := float64(pools * b.N)
			b.ReportMetric(total/reconciled.Seconds(), "reconciles/s")
			b.ReportMetric(total/deleted.Seconds(), "deletes/s")
		})
	}
}

// BenchmarkNoOpReconcile reconciles a pool whose ManagedResources are up to date and counts the requests.
//   - actuator: our Actuator.Reconcile, with a client that counts every request it sends to the API server.
//   - controller: the running controller manager, triggered like gardenlet does (operation annotation); the
//     writes are counted in the API server's audit log, split into ours (ManagedResources, Secrets) and the
//     extension library's bookkeeping on the ContainerRuntime itself (annotation removal, lastOperation).
func BenchmarkNoOpReconcile(b *testing.B) {
	s := stack(b)
	ctx := context.Background()
	ns := newShootNamespace(b, s.Client)
	cr := gardenerfixtures.ContainerRuntime(ns, "pool", []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true"}}`), v1beta1constants.GardenerOperationReconcile)
	if err := s.Client.Create(ctx, cr); err != nil {
		b.Fatal(err)
	}
	waitAll(b, s.Client, ns, 1, func(cr *extensionsv1alpha1.ContainerRuntime) bool {
		return cr.Status.LastOperation != nil && cr.Status.LastOperation.State == "Succeeded"
	})

	b.Run("actuator", func(b *testing.B) {
		scheme := runtime.NewScheme()
		if err := extensionscontroller.AddToScheme(scheme); err != nil {
			b.Fatal(err)
		}
		direct, err := client.New(s.Config, client.Options{Scheme: scheme})
		if err != nil {
			b.Fatal(err)
		}
		images, err := imagevector.Load(version.Version)
		if err != nil {
			b.Fatal(err)
		}
		renderer, err := render.New(images)
		if err != nil {
			b.Fatal(err)
		}
		counting := &countingClient{Client: direct}
		a := containerruntime.NewActuator(containerruntime.ActuatorOptions{Client: counting, APIReader: counting, Renderer: renderer,
			Settings: containerruntime.Settings{DeleteWaitTimeout: time.Minute}})
		if err := direct.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			b.Fatal(err)
		}
		cluster, err := extensionscontroller.GetCluster(ctx, direct, ns)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if err := a.Reconcile(ctx, logr.Discard(), cr, cluster); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(counting.writes.Load())/float64(b.N), "writes/op")
		b.ReportMetric(float64(counting.reads.Load())/float64(b.N), "reads/op")
		if counting.writes.Load() != 0 {
			b.Errorf("a reconcile with nothing to change sent %d writes", counting.writes.Load())
		}
	})

	b.Run("controller", func(b *testing.B) {
		var ours, bookkeeping int
		for range b.N {
			before, err := s.AuditEvents()
			if err != nil {
				b.Fatal(err)
			}
			patch := client.MergeFrom(cr.DeepCopy())
			metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
			if err := s.Client.Patch(ctx, cr, patch); err != nil {
				b.Fatal(err)
			}
			// Done when the library has written Succeeded for this trigger: the annotation is gone and the
			// audit log holds the final status patch.
			var events []envtest.AuditEvent
			deadline := time.Now().Add(time.Minute)
			for {
				if err := s.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
					b.Fatal(err)
				}
				all, err := s.AuditEvents()
				if err != nil {
					b.Fatal(err)
				}
				events = all[len(before):]
				if cr.Annotations[v1beta1constants.GardenerOperation] == "" && cr.Status.LastOperation.State == "Succeeded" && statusPatches(events) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("reconcile not finished within 1m: %+v", cr.Status.LastOperation)
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, e := range events {
				switch {
				case e.User.Username != envtest.ControllerUser:
				case e.ObjectRef.Resource == "containerruntimes":
					bookkeeping++
				default:
					ours++
					b.Errorf("no-op reconcile wrote %s", e)
				}
			}
		}
		b.ReportMetric(float64(ours)/float64(b.N), "writes/op")
		b.ReportMetric(float64(bookkeeping)/float64(b.N), "library-status-writes/op")
	})
}

func statusPatches(events []envtest.AuditEvent) int {
	n := 0
	for _, e := range events {
		if e.User.Username == envtest.ControllerUser && e.ObjectRef.Resource == "containerruntimes" && e.ObjectRef.Subresource == "status" {
			n++
		}
	}
	return n
}

// parallel runs f(0..n-1) on 10 goroutines, like many shoots' gardenlet flows creating resources at once.
func parallel(b *testing.B, n int, f func(i int) error) {
	b.Helper()
	testutil.Parallel(b, 10, n, f)
}

// waitAll polls until the namespace holds want ContainerRuntimes that all satisfy ok (nil: any).
func waitAll(b *testing.B, c client.Client, ns string, want int, ok func(*extensionsv1alpha1.ContainerRuntime) bool) {
	b.Helper()
	testutil.EventuallyEvery(b, 5*time.Minute, 50*time.Millisecond, "the ContainerRuntimes of "+ns, func() error {
		return testutil.ContainerRuntimesDone(context.Background(), c, want, ok, client.InNamespace(ns))
	})
}
