// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// RunscOnNode says what of gVisor the node has: runsc in containerd's config.toml (the handler table) and the
// binaries in the bin dir.
func RunscOnNode(n *kubenode.Node) (inConfig bool, binaries []string, err error) {
	config, err := os.ReadFile(n.HostPath("/etc/containerd/config.toml"))
	if err != nil {
		return false, nil, err
	}
	entries, err := os.ReadDir(n.HostPath(kubenode.BinDir))
	if err != nil && !os.IsNotExist(err) {
		return false, nil, err
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), "runsc") {
			binaries = append(binaries, filepath.Join(kubenode.BinDir, e.Name()))
		}
	}
	return strings.Contains(string(config), "runtimes.runsc"), binaries, nil
}

// DeleteContainerRuntime deletes the ContainerRuntime as gardenlet does when gVisor leaves a pool and waits until
// it is gone (the extension's finalizer released it after the uninstall and the ManagedResources' removal).
func DeleteContainerRuntime(ctx context.Context, n *kubenode.Node, key client.ObjectKey, timeout time.Duration) error {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	if err := n.Client().Get(ctx, key, cr); err != nil {
		return err
	}
	if err := n.Client().Delete(ctx, cr); err != nil {
		return fmt.Errorf("deleting ContainerRuntime %s: %w", key, err)
	}
	return Poll(ctx, timeout, time.Second, "ContainerRuntime "+key.String()+" gone", func() error {
		err := n.Client().Get(ctx, key, cr)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still there: last operation %+v, last error %+v", cr.Status.LastOperation, cr.Status.LastError)
	})
}
