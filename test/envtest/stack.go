// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// ControllerUser is the API server user our controller connects as, so the audit log tells its writes apart.
const ControllerUser = "gardener-extension-runtime-gvisor"

// ExtensionNamespace holds the controller's heartbeat Lease, like the extension's namespace on a seed.
const ExtensionNamespace = "extension-runtime-gvisor"

// StackOptions configure StartStack.
type StackOptions struct {
	Options

	// ControllerArgs are appended to the controller's default args (later flags win), e.g.
	// --ignore-operation-annotation=true.
	ControllerArgs []string
	// ControllerOutput receives the controller's --help/--version output; nil discards it. (Its logs go to stderr.)
	ControllerOutput io.Writer
	// Log is gardener-resource-manager's logger; the zero value discards.
	Log logr.Logger
	// ControllerBinary, if set, runs the controller as this binary (e.g. bin/gardener-extension-runtime-gvisor
	// from `make build`) in a child process, logging to <Dir>/controller.log, instead of in-process.
	ControllerBinary string
	// WithoutResourceManager leaves gardener-resource-manager out: ManagedResources are then stored but not
	// applied. Benchmarks use it to measure our controller without the resource manager competing for CPU.
	WithoutResourceManager bool
}

// Stack is the control plane plus gardener-resource-manager plus our controller manager, the latter running
// in-process through app.Run (the binary's code and flags, minus setting process-wide loggers) or as the binary.
type Stack struct {
	*ControlPlane

	// Client is an admin client with Gardener's extension types.
	Client client.Client
	// HealthURL and MetricsURL are the controller's health (/healthz, /readyz) and metrics (/metrics) servers.
	HealthURL, MetricsURL string

	// ControllerLog is the controller's log file when it runs as a binary.
	ControllerLog string

	rm             *ResourceManager
	stopController context.CancelFunc
	controllerDone chan error
}

// StartStack starts everything and waits until the controller reports ready. ctx bounds the start; everything
// runs until Stop. Only one Stack per process: the
// controller-runtime controller names (containerruntime, heartbeat, managedresource...) are process-global.
func StartStack(ctx context.Context, opts StackOptions) (_ *Stack, err error) {
	cp, err := Start(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	s := &Stack{ControlPlane: cp}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Stop())
		}
	}()

	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	if s.Client, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	if err := s.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ExtensionNamespace}}); err != nil {
		return nil, fmt.Errorf("creating namespace %s: %w", ExtensionNamespace, err)
	}

	if !opts.WithoutResourceManager {
		if s.rm, err = StartResourceManager(ctx, cp.Config, opts.Log); err != nil {
			return nil, err
		}
	}
	if err := s.startController(ctx, opts); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Stack) startController(ctx context.Context, opts StackOptions) error {
	kubeconfig, err := s.AddUser(ControllerUser)
	if err != nil {
		return err
	}
	ports, err := testutil.FreeLoopbackPorts(2)
	if err != nil {
		return fmt.Errorf("finding ports for the controller's health and metrics servers: %w", err)
	}
	healthPort, metricsPort := ports[0], ports[1]
	s.HealthURL = "http://127.0.0.1:" + strconv.Itoa(healthPort)
	s.MetricsURL = "http://127.0.0.1:" + strconv.Itoa(metricsPort)
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-election=false",
		"--ignore-operation-annotation=false",
		"--heartbeat-namespace=" + ExtensionNamespace,
		"--heartbeat-renew-interval-seconds=30",
		"--health-bind-address=127.0.0.1:" + strconv.Itoa(healthPort),
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--log-format=text",
		"--delete-wait-timeout=20s",    // short, so that TestDeleteIsBounded sees the bound quickly
		"--uninstall-timeout=2m",       // longer than any test's simulated rollout; TestRemoveFromPoolTimesOut sets its own
		"--healthcheck-sync-period=2s", // so that tests see the health conditions follow a change within seconds
	}, opts.ControllerArgs...)
	out := opts.ControllerOutput
	if out == nil {
		out = io.Discard
	}

	s.controllerDone = make(chan error, 1)
	if opts.ControllerBinary != "" {
		s.ControllerLog = filepath.Join(s.Dir, "controller.log")
		p, err := startProcess("controller", s.ControllerLog, append([]string{opts.ControllerBinary}, args...)...)
		if err != nil {
			return err
		}
		s.stopController = func() { _ = p.stop() }
		go func() {
			<-p.done
			if p.waitErr != nil {
				s.controllerDone <- fmt.Errorf("%s: %w; log %s:\n%s", opts.ControllerBinary, p.waitErr, s.ControllerLog, p.logTail())
				return
			}
			s.controllerDone <- nil
		}()
		return s.waitControllerReady(ctx)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx)) // runs until Stop, like the resource manager
	s.stopController = cancel
	go func() { s.controllerDone <- app.Run(runCtx, args, out) }()
	return s.waitControllerReady(ctx)
}

// waitControllerReady polls the controller's /readyz until it answers 200 (caches synced), or the controller
// exits, or a minute passes.
func (s *Stack) waitControllerReady(ctx context.Context) error {
	deadline := time.After(time.Minute)
	for {
		select {
		case err := <-s.controllerDone:
			s.controllerDone <- err // keep it for Stop
			return fmt.Errorf("controller exited before becoming ready: %w", err)
		case <-deadline:
			return fmt.Errorf("controller not ready at %s/readyz within 1m", s.HealthURL)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if code, _, err := HTTPGet(ctx, s.HealthURL+"/readyz"); err == nil && code == http.StatusOK {
			return nil
		}
	}
}

// HTTPGet returns the status code and body of a GET of url.
func HTTPGet(ctx context.Context, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Stop stops the controller, gardener-resource-manager and the control plane, in that order.
func (s *Stack) Stop() error {
	var errs []error
	if s.stopController != nil {
		s.stopController()
		s.stopController = nil
		if err := <-s.controllerDone; err != nil {
			errs = append(errs, fmt.Errorf("controller: %w", err))
		}
	}
	errs = append(errs, s.rm.Stop(), s.ControlPlane.Stop())
	return errors.Join(errs...)
}
