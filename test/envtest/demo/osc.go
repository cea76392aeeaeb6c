// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// oscControllerArgs are the controller flags of the OperatingSystemConfig mode in the demo: the mode, and the
// webhook served on loopback and registered by URL with the library's own (unmanaged) certificate, so that the
// demo's kube-apiserver calls it when the demo writes a pool's OSC as gardenlet would.
func oscControllerArgs() ([]string, func(), error) {
	port, err := loopbackPort()
	if err != nil {
		return nil, nil, err
	}
	certDir, err := os.MkdirTemp("", "gvisor-demo-webhook-")
	if err != nil {
		return nil, nil, err
	}
	p := strconv.Itoa(port)
	return []string{
		"--delivery-mode=" + string(delivery.OperatingSystemConfig),
		"--webhook-config-server-host=127.0.0.1",
		"--webhook-config-server-port=" + p,
		"--webhook-config-cert-dir=" + certDir,
		"--webhook-config-mode=url",
		"--webhook-config-url=127.0.0.1:" + p,
	}, func() { _ = os.RemoveAll(certDir) }, nil
}

// markShootNamespace labels the shoot namespaces among objs gardener.cloud/role=shoot, as gardenlet does: the
// webhook's registration selects exactly those namespaces.
func markShootNamespace(objs []client.Object) {
	for _, obj := range objs {
		if ns, ok := obj.(*corev1.Namespace); ok {
			metav1.SetMetaDataLabel(&ns.ObjectMeta, v1beta1constants.GardenRole, v1beta1constants.GardenRoleShoot)
		}
	}
}

// showMutatedOSC writes the reconcile OSC of cr's pool the way gardenlet does (its name, labels, purpose and
// criConfig for the Cluster's Shoot, from gardenlet's own code; one kubelet unit standing for the rest), lets the
// API server send it through the extension's webhook, and prints what is stored: gVisor's files, its containerd
// plugin entry and the sandbox-proof unit.
func showMutatedOSC(ctx context.Context, c client.Client, cr *extensionsv1alpha1.ContainerRuntime) error {
	pool := cr.Spec.WorkerPool.Name
	cluster, err := extensionscontroller.GetCluster(ctx, c, cr.Namespace)
	if err != nil {
		return fmt.Errorf("reading the Cluster %s for the Shoot of worker pool %s: %w", cr.Namespace, pool, err)
	}
	oscs, ok := gardenerfixtures.OperatingSystemConfigs(cluster.Shoot)[pool]
	if !ok {
		return fmt.Errorf("the Shoot in Cluster %s has no worker pool %s", cr.Namespace, pool)
	}
	osc := oscs.Reconcile
	osc.Spec.Units = []extensionsv1alpha1.Unit{{
		Name: "kubelet.service", Command: ptr.To(extensionsv1alpha1.CommandStart), Enable: ptr.To(true),
		Content: ptr.To("[Unit]\nDescription=kubelet daemon\n[Service]\nExecStart=/opt/bin/kubelet\n"),
	}}
	osc.Spec.Files = nil
	if err := c.Create(ctx, osc); err != nil {
		return fmt.Errorf("writing the reconcile OperatingSystemConfig of worker pool %s (the webhook mutates it): %w", pool, err)
	}
	say("applied %s as gardenlet writes it (one kubelet unit, criConfig containerd); the API server sent it through the extension's webhook", describe(osc))
	if err := c.Get(ctx, client.ObjectKeyFromObject(osc), osc); err != nil {
		return err
	}
	got := oscstate.Classify(osc)
	if !got.Carries() {
		return fmt.Errorf("the stored OSC of worker pool %s does not deliver gVisor (entry %s, files %v): is the webhook registered?", pool, got.Entry, got.Files)
	}
	// Only the spec: metadata and status are the API server's and the OS extension's.
	show("OperatingSystemConfig of worker pool "+pool+" as stored (mutated by the webhook; gardener-node-agent applies it before kubelet starts)",
		&extensionsv1alpha1.OperatingSystemConfig{
			TypeMeta:   metav1.TypeMeta{APIVersion: extensionsv1alpha1.SchemeGroupVersion.String(), Kind: "OperatingSystemConfig"},
			ObjectMeta: metav1.ObjectMeta{Name: osc.Name, Namespace: osc.Namespace, Labels: osc.Labels},
			Spec:       osc.Spec,
		})
	return nil
}

// loopbackPort is a TCP port on 127.0.0.1 that was free a moment ago.
func loopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a port for the webhook server: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
