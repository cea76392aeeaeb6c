// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// Environment of the benchmark (make bench-seed sets them).
const (
	// enableEnv must be 1: the benchmark is too heavy for `make bench`'s loop over every package.
	enableEnv = "GVISOR_SEEDBENCH"
	// sizesEnv are the seed sizes, each <shoots>x<pools per shoot>, run one after the other on one control plane;
	// default 50x3 (150 pools). make bench-seed runs 50x3,100x5 (150 and 500 pools).
	sizesEnv = "GVISOR_SEEDBENCH_SIZES"
	// shootsEnv, without sizesEnv, is the number of shoots with 3 pools each. 10 gives 30 pools.
	shootsEnv = "GVISOR_SEEDBENCH_SHOOTS"
	// controllersEnv is the order of the runs, e.g. "ours,field" (default: ours, then field if its binary is set);
	// "ours@<path>" runs another build of ours (e.g. of another commit), named after the file.
	controllersEnv = "GVISOR_SEEDBENCH_CONTROLLERS"
	// oursEnv is a prebuilt binary of ours (e.g. of another commit); empty: built from this checkout.
	oursEnv = "GVISOR_SEEDBENCH_OURS"
	// fieldEnv is the field's extension's binary (hack/tools/field-extension.sh prints it).
	fieldEnv = "GVISOR_FIELD_EXTENSION"
	// pprofEnv is a folder: ours then runs with --pprof-bind-address and its heap profile (after all pools are
	// reconciled and the steady phase) is written there.
	pprofEnv = "GVISOR_SEEDBENCH_PPROF_DIR"
	// pprofSecondsEnv is how long each CPU profile (create, delete) runs from the phase's start; default 20.
	pprofSecondsEnv = "GVISOR_SEEDBENCH_PPROF_SECONDS"
	// steadyEnv is how long all pools stay reconciled before deletion (health checks run meanwhile); default 40s,
	// longer than both controllers' 30 s health-check period.
	steadyEnv = "GVISOR_SEEDBENCH_STEADY"
)

// size is one seed size of the benchmark.
type size struct{ shoots, poolsPerShoot int }

func (s size) pools() int { return s.shoots * s.poolsPerShoot }

// sizes reads sizesEnv (or shootsEnv).
func sizes(b *testing.B) []size {
	b.Helper()
	v := os.Getenv(sizesEnv)
	if v == "" {
		v = "50x3"
		if n := os.Getenv(shootsEnv); n != "" {
			v = n + "x3"
		}
	}
	var out []size
	for _, f := range strings.Split(v, ",") {
		shoots, pools, ok := strings.Cut(strings.TrimSpace(f), "x")
		s, err1 := strconv.Atoi(shoots)
		p, err2 := strconv.Atoi(pools)
		if !ok || err1 != nil || err2 != nil || s < 1 || p < 1 || p > 26 {
			b.Fatalf("%s=%q: want sizes such as 50x3,100x5 (shoots x pools per shoot, at most 26 pools)", sizesEnv, v)
		}
		out = append(out, size{shoots: s, poolsPerShoot: p})
	}
	return out
}

func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard()) // envtest and gardener-resource-manager log through it; their errors come back anyway
	os.Exit(m.Run())
}

// controllerFlags returns the command line of a controller: the same workers (5 ContainerRuntime workers, 5
// health-check workers where there is a flag for it), the same operation-annotation mode as gardenlet drives
// (reconcile only annotated objects), no leader election, the same heartbeat namespace.
func controllerFlags(name, kubeconfig string, healthPort, metricsPort, pprofPort int) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-election=false",
		"--ignore-operation-annotation=false",
		"--max-concurrent-reconciles=5",
		"--heartbeat-namespace=" + envtest.ExtensionNamespace,
		"--health-bind-address=127.0.0.1:" + strconv.Itoa(healthPort),
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--log-format=json",
	}
	switch name {
	case "field":
		args = append(args, "--healthcheck-max-concurrent-reconciles=5")
	case "ours":
		if pprofPort != 0 {
			args = append(args, "--pprof-bind-address=127.0.0.1:"+strconv.Itoa(pprofPort))
		}
	}
	return args
}

// BenchmarkSeedScale runs each controller once per iteration and seed size against one control plane: the size's
// shoots (Clusters with a ~100 KB CloudProfile, the shoot access secret) exist before it starts; then all their
// ContainerRuntimes are created at once and the time until all are reconciled (lastOperation Succeeded, annotation
// removed) is measured, with the slowest shoot's time until all its pools were; then after a steady phase their
// deletion until all are gone. gardener-resource-manager applies the ManagedResources (into the same API server)
// throughout. Every API request of the controller is counted from the audit log, per phase (requests.go), and the
// table of all controllers of a size is logged and written next to the logs.
func BenchmarkSeedScale(b *testing.B) {
	if os.Getenv(enableEnv) != "1" {
		b.Skipf("set %s=1 (make bench-seed) to run the seed-scale benchmark", enableEnv)
	}
	assets := realcomponents.KubebuilderAssets(b)
	seedSizes := sizes(b)
	steady := 40 * time.Second
	if v := os.Getenv(steadyEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("%s=%q: want a duration such as 40s: %v", steadyEnv, v, err)
		}
		steady = d
	}
	binaries := map[string]string{"ours": os.Getenv(oursEnv), "field": os.Getenv(fieldEnv)}
	order := []string{"ours"}
	if binaries["field"] != "" {
		order = append(order, "field")
	}
	if v := os.Getenv(controllersEnv); v != "" {
		order = strings.Split(v, ",")
	}
	for _, name := range order {
		if kind, path, ok := strings.Cut(name, "@"); ok && kind == "ours" {
			binaries[name] = path
			continue
		}
		if _, ok := binaries[name]; !ok {
			b.Fatalf("%s: unknown controller %q (ours, field, ours@<binary>)", controllersEnv, name)
		}
	}
	if binaries["field"] == "" && strings.Contains(strings.Join(order, ","), "field") {
		b.Fatalf("%s is empty: set it to the binary hack/tools/field-extension.sh prints", fieldEnv)
	}
	if binaries["ours"] == "" {
		binaries["ours"] = buildOurs(b)
	}

	ctx := context.Background()
	// Kept after the run: the controllers' logs and kube-controller-manager's are there.
	dir, err := os.MkdirTemp("", "gvisor-seedbench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("logs: %s", dir)
	cp, err := envtest.Start(ctx, envtest.Options{AssetsDir: assets, Dir: dir, Audit: true, AuditReadsOfGroup: auditGroup})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			b.Error(err)
		}
	})
	rm, err := startResourceManager(ctx, cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := rm.Stop(); err != nil {
			b.Error(err)
		}
	})
	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: envtest.ExtensionNamespace}}); err != nil {
		b.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(cp.KubeconfigPath)
	if err != nil {
		b.Fatal(err)
	}

	for _, sz := range seedSizes {
		labels, requests := []string{}, map[string]requestCounts{}
		for _, name := range order {
			kind, label := name, name
			if k, path, ok := strings.Cut(name, "@"); ok {
				kind, label = k, k+"-"+filepath.Base(path)
			}
			b.Run(fmt.Sprintf("pools=%d/controller=%s", sz.pools(), label), func(b *testing.B) {
				r := &run{b: b, c: c, cp: cp, name: kind, label: label, binary: binaries[name], size: sz, kubeconfig: kubeconfig, steady: steady}
				var total result
				for range b.N {
					total.add(r.once())
				}
				reportMetrics(b, total, sz.pools())
				labels = append(labels, fmt.Sprintf("%s (run %d)", label, len(labels)+1))
				requests[labels[len(labels)-1]] = total.requests
			})
		}
		table := requestTable(sz.pools(), labels, requests)
		path := filepath.Join(dir, fmt.Sprintf("requests-pools%d.md", sz.pools()))
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Logf("API requests per pool and phase, %d pools (%dx%d; from kube-apiserver's audit log; %s):\n%s", sz.pools(), sz.shoots, sz.poolsPerShoot, path, table)
	}
}

// reportMetrics reports the runs' averages.
func reportMetrics(b *testing.B, total result, pools int) {
	n := float64(b.N)
	p := float64(pools)
	b.ReportMetric(p*n/total.reconcile.Seconds(), "reconciles/s")
	b.ReportMetric(p*n/total.delete.Seconds(), "deletes/s")
	b.ReportMetric(total.slowestShoot.Seconds()/n, "slowest-shoot-s")
	b.ReportMetric(float64(total.peakRSS)/n/1e6, "peak-RSS-MB")
	b.ReportMetric(float64(total.idleRSS)/n/1e6, "idle-RSS-MB")
	b.ReportMetric(total.cpu.Seconds()/n, "cpu-s")
	b.ReportMetric(total.cpuReconcile.Seconds()/n, "cpu-s-reconcile")
	b.ReportMetric(total.cpuSteady.Seconds()/n, "cpu-s-steady")
	b.ReportMetric(total.cpuDelete.Seconds()/n, "cpu-s-delete")
}

// buildOurs builds our controller from this checkout as `make build` does.
func buildOurs(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "gardener-extension-runtime-gvisor")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building our controller: %v\n%s", err, out)
	}
	return bin
}

type result struct {
	reconcile, delete, slowestShoot         time.Duration
	peakRSS, idleRSS                        int64
	cpu, cpuReconcile, cpuSteady, cpuDelete time.Duration
	// requests are the controller's API requests (of all iterations).
	requests requestCounts
}

func (r *result) add(o result) {
	r.reconcile += o.reconcile
	r.delete += o.delete
	r.slowestShoot += o.slowestShoot
	r.peakRSS += o.peakRSS
	r.idleRSS += o.idleRSS
	r.cpu += o.cpu
	r.cpuReconcile += o.cpuReconcile
	r.cpuSteady += o.cpuSteady
	r.cpuDelete += o.cpuDelete
	if r.requests == nil {
		r.requests = requestCounts{}
	}
	for ph, keys := range o.requests {
		if r.requests[ph] == nil {
			r.requests[ph] = map[requestKey]int{}
		}
		for k, n := range keys {
			r.requests[ph][k] += n
		}
	}
}

type run struct {
	b          *testing.B
	c          client.Client
	cp         *envtest.ControlPlane
	name       string // ours or field: which flags
	label      string // names the run's logs and profiles
	binary     string
	size       size
	kubeconfig []byte
	steady     time.Duration
}

var users atomic.Int64

func (r *run) namespace(s int) string { return fmt.Sprintf("shoot--bench--s%02d", s) }
func (r *run) pools(s int) []string {
	// Unique across shoots: all shoots' DaemonSets land in the one API server's kube-system.
	pools := make([]string, r.size.poolsPerShoot)
	for i := range pools {
		pools[i] = fmt.Sprintf("s%02d-%c", s, 'a'+i)
	}
	return pools
}

// once is one measured run of the controller: objects, controller start, reconcile, steady phase, deletion, stop, cleanup.
func (r *run) once() result {
	b, ctx := r.b, context.Background()
	b.StopTimer()
	defer b.StartTimer()
	// The controller's user and, for the shoot access secret (our health checks' shoot client), a second one:
	// the audit log tells their requests apart from everyone else's (requests.go).
	user := fmt.Sprintf("%s-%d", r.label, users.Add(1))
	kubeconfig, err := r.cp.AddUserInGroup(user, auditGroup)
	if err != nil {
		b.Fatal(err)
	}
	shootKubeconfigPath, err := r.cp.AddUserInGroup(user+"-shoot", auditGroup)
	if err != nil {
		b.Fatal(err)
	}
	shootKubeconfig, err := os.ReadFile(shootKubeconfigPath)
	if err != nil {
		b.Fatal(err)
	}
	parallel(b, r.size.shoots, func(s int) error {
		ns := r.namespace(s)
		if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
		if err := r.c.Create(ctx, Cluster(ns, fmt.Sprintf("s%02d", s), r.pools(s))); err != nil {
			return err
		}
		for _, secret := range gardenerfixtures.ShootAccessSecrets(ns, shootKubeconfig) {
			if err := r.c.Create(ctx, secret); err != nil {
				return err
			}
		}
		return createOtherComponents(ctx, r.c, ns)
	})
	defer r.cleanup()
	ports := testutil.FreePorts(b, 3)
	pprofDir := os.Getenv(pprofEnv)
	pprofPort := 0
	if r.name == "ours" && pprofDir != "" {
		pprofPort = ports[2]
	}
	env := []string{"LEADER_ELECTION_NAMESPACE=" + envtest.ExtensionNamespace, "HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")}
	if gogc := os.Getenv("GOGC"); gogc != "" {
		env = append(env, "GOGC="+gogc) // the garbage collector's target, to weigh CPU against RSS (both controllers)
	}
	logPath := filepath.Join(r.cp.Dir, user+".log")
	if err := evictFromPageCache(r.binary); err != nil {
		b.Fatal(err)
	}
	processStart := time.Now()
	p, err := envtest.StartProcess(r.name, logPath, env, append([]string{r.binary}, controllerFlags(r.name, kubeconfig, ports[0], ports[1], pprofPort)...)...)
	if err != nil {
		b.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = p.Stop()
		}
	}()
	// Started: its metrics server answers (the field registers no health checks, so its /healthz is a 404), and
	// ours also reports its caches synced.
	if err := p.WaitHealthy(ctx, fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[1]), time.Minute); err != nil {
		b.Fatal(err)
	}
	if r.name == "ours" {
		if err := p.WaitHealthy(ctx, fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[0]), time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	started := r.stats(p)

	// gardenlet's ContainerRuntimes, built before the clock starts.
	crs := make([]*extensionsv1alpha1.ContainerRuntime, 0, r.size.pools())
	for s := range r.size.shoots {
		for _, pool := range r.pools(s) {
			crs = append(crs, gardenerfixtures.ContainerRuntime(r.namespace(s), pool, nil, v1beta1constants.GardenerOperationReconcile))
		}
	}
	var res result
	r.cpuProfile(pprofPort, pprofDir, "create")
	start := time.Now()
	createStart := start
	parallel(b, len(crs), func(i int) error { return r.c.Create(ctx, crs[i]) })
	res.slowestShoot = r.waitReconciled(p, start)
	res.reconcile = time.Since(start)
	reconciledAt := time.Now()
	reconciled := r.stats(p)

	time.Sleep(r.steady)
	if pprofPort != 0 {
		base := filepath.Join(pprofDir, fmt.Sprintf("heap-%s-pools%d", r.label, r.size.pools()))
		url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", pprofPort)
		r.writeHeapProfile(url, base+".pb.gz")
		r.writeHeapProfile(url+"?debug=1", base+".txt") // the text form ends with runtime.MemStats (HeapInuse, HeapSys, ...)
	}
	beforeDelete := r.stats(p)

	start = time.Now()
	deleteStart := start
	r.cpuProfile(pprofPort, pprofDir, "delete")
	parallel(b, r.size.shoots, func(s int) error {
		return r.c.DeleteAllOf(ctx, &extensionsv1alpha1.ContainerRuntime{}, client.InNamespace(r.namespace(s)))
	})
	r.waitAll(p, 0, nil)
	res.delete = time.Since(start)
	end := r.stats(p)
	stopped = true
	if err := p.Stop(); err != nil {
		b.Fatal(err)
	}

	res.peakRSS, res.idleRSS = end.PeakRSS, started.RSS
	res.cpu = end.CPU
	res.cpuReconcile = reconciled.CPU - started.CPU
	res.cpuSteady = beforeDelete.CPU - reconciled.CPU
	res.cpuDelete = end.CPU - beforeDelete.CPU
	res.requests = r.requests(map[string]string{user: "seed", user + "-shoot": "shoot"}, []phase{
		{"start", processStart, createStart}, {"create", createStart, reconciledAt},
		{"steady", reconciledAt, deleteStart}, {"delete", deleteStart, time.Now()},
	})
	b.Logf("%s (%s): %d pools reconciled in %.1fs (slowest shoot %.1fs), deleted in %.1fs; RSS at start %.1f MB, after reconcile %.1f MB, before delete %.1f MB (anonymous %.1f MB, file %.1f MB), peak (VmHWM) %.1f MB; CPU %.1fs (reconcile %.1fs, steady %.1fs, delete %.1fs); log %s",
		r.label, r.binary, r.size.pools(), res.reconcile.Seconds(), res.slowestShoot.Seconds(), res.delete.Seconds(),
		mb(started.RSS), mb(reconciled.RSS), mb(beforeDelete.RSS), mb(beforeDelete.RSSAnon), mb(beforeDelete.RSSFile), mb(end.PeakRSS),
		end.CPU.Seconds(), res.cpuReconcile.Seconds(), (beforeDelete.CPU - reconciled.CPU).Seconds(), res.cpuDelete.Seconds(), logPath)
	return res
}

// cpuProfile fetches, in the background, a CPU profile of the next 20 s (pprofSecondsEnv) of the phase (pprof's
// handler answers when they are over) into pprofDir; nothing without pprofPort.
func (r *run) cpuProfile(pprofPort int, pprofDir, phase string) {
	if pprofPort == 0 {
		return
	}
	path := filepath.Join(pprofDir, fmt.Sprintf("cpu-%s-%s-pools%d.pb.gz", phase, r.label, r.size.pools()))
	go func() {
		seconds := os.Getenv(pprofSecondsEnv)
		if seconds == "" {
			seconds = "20"
		}
		if err := fetchToFile(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%s", pprofPort, seconds), path); err != nil {
			r.b.Logf("CPU profile: %v", err)
		}
	}()
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func (r *run) stats(p *envtest.Process) procStats {
	r.b.Helper()
	s, err := readProcStats(p.Pid())
	if err != nil {
		r.b.Fatal(err)
	}
	return s
}

func (r *run) writeHeapProfile(url, path string) {
	r.b.Helper()
	if err := fetchToFile(url, path); err != nil {
		r.b.Fatalf("heap profile: %v", err)
	}
	r.b.Logf("heap profile: %s (go tool pprof -sample_index=inuse_space -top %s)", path, path)
}

// fetchToFile writes what url answers into path.
func fetchToFile(url, path string) error {
	resp, err := http.Get(url) //nolint:noctx // loopback, bounded by the benchmark
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d, %v", url, resp.StatusCode, err)
	}
	return os.WriteFile(path, data, 0o644)
}

// cleanup removes the run's shoots (Clusters are cluster-scoped and go explicitly) and waits until every namespace
// is gone, so that the next controller starts on the same objects; the RuntimeClass the shoots shared goes too.
func (r *run) cleanup() {
	b, ctx := r.b, context.Background()
	for s := range r.size.shoots {
		ns := r.namespace(s)
		_ = client.IgnoreNotFound(r.c.Delete(ctx, &extensionsv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		_ = client.IgnoreNotFound(r.c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	}
	_ = client.IgnoreNotFound(r.c.Delete(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}))
	deadline := time.Now().Add(5 * time.Minute)
	for s := 0; s < r.size.shoots; {
		err := r.c.Get(ctx, client.ObjectKey{Name: r.namespace(s)}, &corev1.Namespace{})
		switch {
		case apierrors.IsNotFound(err):
			s++
			continue
		case time.Now().After(deadline):
			mrs := &resourcesv1alpha1.ManagedResourceList{}
			_ = r.c.List(ctx, mrs, client.InNamespace(r.namespace(s)))
			b.Fatalf("namespace %s not gone 5m after deletion (%d ManagedResources left, err %v)", r.namespace(s), len(mrs.Items), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitReconciled waits until every ContainerRuntime has lastOperation Succeeded with the operation annotation
// removed, and returns the slowest shoot's time from start until all its pools were.
func (r *run) waitReconciled(p *envtest.Process, start time.Time) time.Duration {
	r.b.Helper()
	doneAt := map[string]time.Duration{}
	r.waitAll(p, r.size.pools(), func(cr *extensionsv1alpha1.ContainerRuntime) bool {
		op := cr.Status.LastOperation
		return op != nil && op.State == "Succeeded" && cr.Annotations[v1beta1constants.GardenerOperation] == ""
	}, func(done map[string]int) {
		for ns, n := range done {
			if _, seen := doneAt[ns]; !seen && n == r.size.poolsPerShoot {
				doneAt[ns] = time.Since(start)
			}
		}
	})
	var slowest time.Duration
	for _, d := range doneAt {
		slowest = max(slowest, d)
	}
	return slowest
}

// requests counts the run's requests from the audit log, after a moment for the watches that the controller's
// stop ended to be recorded.
func (r *run) requests(clients map[string]string, phases []phase) requestCounts {
	r.b.Helper()
	time.Sleep(time.Second)
	events, err := r.cp.AuditEvents()
	if err != nil {
		r.b.Fatal(err)
	}
	return countRequests(events, clients, phases)
}

// waitAll polls until the seed holds want ContainerRuntimes that all satisfy ok (nil: any); the controller exiting
// or 10 minutes without reaching it fail the benchmark.
func (r *run) waitAll(p *envtest.Process, want int, ok func(*extensionsv1alpha1.ContainerRuntime) bool, perShoot ...func(done map[string]int)) {
	r.b.Helper()
	// Each poll lists every ContainerRuntime (a few KB each) through the shared API server: at a fixed interval
	// that load would grow with the pools times the run's length, so the interval grows with the pools (100 ms at
	// 150, 333 ms at 500), a small part of the times measured.
	interval := time.Duration(max(r.size.pools(), 150)) * time.Second / 1500
	testutil.EventuallyEvery(r.b, 20*time.Minute, interval, r.name+"'s ContainerRuntimes (log "+p.LogPath()+")", func() error {
		done := map[string]int{}
		count := ok
		if ok != nil {
			count = func(cr *extensionsv1alpha1.ContainerRuntime) bool {
				if !ok(cr) {
					return false
				}
				done[cr.Namespace]++
				return true
			}
		}
		err := testutil.ContainerRuntimesDone(context.Background(), r.c, want, count)
		for _, f := range perShoot {
			f(done)
		}
		select {
		case <-p.Done():
			r.b.Fatalf("%s exited (%v): %v; log %s", r.name, p.Err(), err, p.LogPath())
		default:
		}
		return err
	})
}

// parallel runs f(0..n-1) on 10 goroutines, like many shoots' gardenlet flows creating resources at once.
func parallel(b *testing.B, n int, f func(i int) error) {
	b.Helper()
	testutil.Parallel(b, 10, n, f)
}
