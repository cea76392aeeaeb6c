// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/nodeagent/controller/systemdunitcheck"
	"github.com/gardener/gardener/pkg/nodeagent/dbus"
	"github.com/go-logr/logr"
	"github.com/spf13/afero"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"
)

// systemdEnv carries a systemdRequest (JSON) to a re-executed test binary: it then runs node-agent's systemd code
// against the test's systemd instead of the tests (see TestMain).
const systemdEnv = "GVISOR_TEST_NODEAGENT_SYSTEMD"

// systemdRequest is one step of node-agent's on the test's systemd.
type systemdRequest struct {
	// Op "apply": the end of node-agent's OSC reconcile for Units, whose files are in place (daemon-reload, enable,
	// restart each changed unit as executeUnitCommands does: in parallel, each waited for up to 10 s).
	// Op "check": node-agent's systemd-unit check (systemdunitcheck.Reconciler) of OSC, the last-applied OSC, on
	// a Node named Node; the child prints the Node it patched (JSON).
	Op    string
	Units []string
	OSC   *extensionsv1alpha1.OperatingSystemConfig
	Node  string
	Pool  string
}

// nodeAgentSystemd runs req in a child (this test binary) in the systemd's PID and mount namespaces, where
// node-agent's D-Bus client (pkg/nodeagent/dbus, go-systemd's private socket) finds it.
// "check" returns the Node the check patched.
func nodeAgentSystemd(t testing.TB, s *systemd, req systemdRequest) (*corev1.Node, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := s.in(ctx, self)
	cmd.Env = append(os.Environ(), systemdEnv+"="+string(raw))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node-agent's %s in the test's systemd: %w: %s", req.Op, err, stderr.String())
	}
	if req.Op != "check" {
		return nil, nil
	}
	node := &corev1.Node{}
	if err := json.Unmarshal(out, node); err != nil {
		return nil, fmt.Errorf("the Node after node-agent's check: %w: %s", err, out)
	}
	return node, nil
}

// systemdChild is the child's whole life: decode the request, run it, report an error on stderr.
func systemdChild(raw string) int {
	var req systemdRequest
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", systemdEnv, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	switch req.Op {
	case "apply":
		err = applyUnits(ctx, req.Units)
	case "check":
		err = checkUnits(ctx, req)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// applyUnits is node-agent's reconcile from the written unit files on: applyChangedUnits enables each unit,
// DaemonReload, executeUnitCommands restarts each (command start is a restart there) in parallel.
func applyUnits(ctx context.Context, units []string) error {
	db := dbus.New(logr.Discard())
	if err := db.Enable(ctx, units...); err != nil {
		return fmt.Errorf("enabling %v: %w", units, err)
	}
	if err := db.DaemonReload(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(units))
	for i, u := range units {
		wg.Go(func() { errs[i] = db.Restart(ctx, nil, nil, u) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// checkUnits runs node-agent's systemd-unit check once with req.OSC as the last-applied OSC (on an in-memory file
// system, at node-agent's path) on a Node of req.Pool, and prints the Node it patched.
func checkUnits(ctx context.Context, req systemdRequest) error {
	osc := req.OSC.DeepCopy()
	osc.APIVersion, osc.Kind = extensionsv1alpha1.SchemeGroupVersion.String(), extensionsv1alpha1.OperatingSystemConfigResource
	data, err := yaml.Marshal(osc)
	if err != nil {
		return err
	}
	fs := afero.Afero{Fs: afero.NewMemMapFs()}
	if err := fs.WriteFile(nodeagentconfigv1alpha1.LastAppliedOperatingSystemConfigFilePath, data, 0o600); err != nil {
		return err
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: req.Node, Labels: map[string]string{v1beta1constants.LabelWorkerPool: req.Pool}}}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(node).WithStatusSubresource(node).Build()
	r := &systemdunitcheck.Reconciler{Client: c, DBus: dbus.New(logr.Discard()), Clock: clock.RealClock{}, FS: fs,
		Config: nodeagentconfigv1alpha1.SystemdUnitCheckControllerConfig{SyncPeriod: &metav1.Duration{Duration: time.Minute}, StuckThreshold: &metav1.Duration{Duration: time.Minute}}}
	if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Name: req.Node}}); err != nil {
		return fmt.Errorf("node-agent's systemd-unit check: %w", err)
	}
	if err := c.Get(ctx, types.NamespacedName{Name: req.Node}, node); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(node)
}
