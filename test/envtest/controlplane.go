// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configure Start.
type Options struct {
	// AssetsDir holds etcd, kube-apiserver and kube-controller-manager (KUBEBUILDER_ASSETS).
	AssetsDir string
	// Dir receives the admin kubeconfig and the kube-controller-manager log. Empty: a new temporary folder that
	// Stop removes.
	Dir string
	// Audit makes kube-apiserver record every write request (see AuditEvents).
	Audit bool
	// AuditReadsOfGroup (with Audit) also records every read and watch of the users in this group
	// (AddUserInGroup): the seed-scale benchmark counts all requests of the controllers it starts.
	AuditReadsOfGroup string
	// APIServerPort, if set, is the port kube-apiserver serves on at 127.0.0.1 (else a free one): 443 for a
	// client that, like a shoot Prometheus, addresses the API server as kube-apiserver:443.
	APIServerPort int
}

// ControlPlane is a running etcd + kube-apiserver + kube-controller-manager with Gardener's CRDs installed.
type ControlPlane struct {
	// Config is an admin (system:masters) connection to the API server.
	Config *rest.Config
	// KubeconfigPath is a kubeconfig file for Config, for processes and humans (kubectl --kubeconfig).
	KubeconfigPath string
	// Dir holds the kubeconfig and logs.
	Dir string

	env        *crenvtest.Environment
	kcm        *process
	auditLog   string
	removeDir  bool
	stopCalled bool
}

// Start starts the control plane and waits until kube-controller-manager reports healthy. On error everything
// already started is stopped again.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	if opts.AssetsDir == "" {
		return nil, errors.New("envtest: AssetsDir (KUBEBUILDER_ASSETS) is empty: run hack/tools/control-plane.sh, it prints the folder")
	}
	for _, bin := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		if _, err := os.Stat(filepath.Join(opts.AssetsDir, bin)); err != nil {
			return nil, fmt.Errorf("envtest: %s missing in %s (run hack/tools/control-plane.sh): %w", bin, opts.AssetsDir, err)
		}
	}
	crds, err := GardenerCRDPaths()
	if err != nil {
		return nil, err
	}

	cp := &ControlPlane{Dir: opts.Dir}
	if cp.Dir == "" {
		if cp.Dir, err = os.MkdirTemp("", "gvisor-envtest-"); err != nil {
			return nil, fmt.Errorf("envtest: creating work folder: %w", err)
		}
		cp.removeDir = true
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, cp.Stop())
		}
	}()

	cp.env = &crenvtest.Environment{
		BinaryAssetsDirectory:    opts.AssetsDir,
		CRDDirectoryPaths:        crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	if opts.APIServerPort != 0 {
		api := cp.env.ControlPlane.GetAPIServer()
		// Address and Port of its secure serving (promoted fields of envtest's internal ListenAddr).
		api.Address, api.Port = "127.0.0.1", strconv.Itoa(opts.APIServerPort)
	}
	if opts.Audit {
		if cp.auditLog, err = configureAudit(cp.env, cp.Dir, opts.AuditReadsOfGroup); err != nil {
			return nil, err
		}
	}
	if cp.Config, err = cp.env.Start(); err != nil {
		return nil, fmt.Errorf("envtest: starting etcd and kube-apiserver from %s: %w", opts.AssetsDir, err)
	}
	// More headroom than client-go's default (5 qps): the benchmarks create hundreds of objects.
	cp.Config.QPS, cp.Config.Burst = 500, 1000

	// An admin kubeconfig for kube-controller-manager and for humans (kubectl --kubeconfig).
	if cp.KubeconfigPath, err = cp.AddUser("admin"); err != nil {
		return nil, err
	}
	if cp.kcm, err = startKubeControllerManager(ctx, opts.AssetsDir, cp.Dir, cp.KubeconfigPath); err != nil {
		return nil, err
	}
	return cp, nil
}

// Stop stops kube-controller-manager, kube-apiserver and etcd and removes the temporary folder. Safe to call twice.
func (cp *ControlPlane) Stop() error {
	if cp == nil || cp.stopCalled {
		return nil
	}
	cp.stopCalled = true
	var errs []error
	if cp.kcm != nil {
		errs = append(errs, cp.kcm.stop())
	}
	if cp.env != nil && cp.Config != nil {
		if err := cp.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("envtest: stopping kube-apiserver and etcd: %w", err))
		}
	}
	if cp.removeDir {
		errs = append(errs, os.RemoveAll(cp.Dir))
	}
	return errors.Join(errs...)
}
