// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// The objects the extension in the field (gardener/gardener-extension-runtime-gvisor, charts/internal/gvisor and
// charts/internal/gvisor-installation) has in a shoot, in its shape: a shell script in a ConfigMap, run by a
// privileged DaemonSet containerd-gvisor-<pool> whose selector is the same for every pool, and the RuntimeClass.
// Its controller wrote them with Gardener's builder of its time: one mutable Secret per ManagedResource, named
// like it, holding the rendered chart under config.yaml, without the garbage-collectable label.
const (
	oldRuntimeClassChart = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
scheduling:
  nodeSelector:
    containerruntime.worker.gardener.cloud/gvisor: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: gvisor
  namespace: kube-system
`
	oldInstallationChart = `apiVersion: v1
kind: ConfigMap
metadata:
  name: containerd-gvisor-a
  namespace: kube-system
data:
  install-gvisor-containerd.sh: |-
    #!/bin/sh
    BIN_TARGET_DIR="/var/bin/containerruntimes"
    mkdir -p "/var/host/$BIN_TARGET_DIR"
    cd /var/content
    FILENAME=/var/host/etc/containerd/config.toml
    if ! grep -q containerd.runtimes.runsc "$FILENAME"; then
      cat <<EOF >> $FILENAME
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
      runtime_type = "io.containerd.runsc.v1"
    EOF
      chroot /var/host bash -c "systemctl restart containerd"
    fi
    while true; do sleep 3600; done
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: containerd-gvisor-a
  namespace: kube-system
  labels:
    app.kubernetes.io/name: containerd-gvisor
    helm.sh/chart: containerd-gvisor
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: containerd-gvisor
  template:
    metadata:
      annotations:
        checksum/configmp-containerd-gvisor: 0d2f1c3f1e3f4c1b9a7e8d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928
      labels:
        app.kubernetes.io/name: containerd-gvisor
        origin: gardener-extension-runtime-gvisor
        gardener.cloud/role: container-runtime
    spec:
      serviceAccountName: gvisor
      automountServiceAccountToken: false
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      hostPID: true
      hostIPC: true
      nodeSelector:
        worker.gardener.cloud/pool: a
        containerruntime.worker.gardener.cloud/gvisor: "true"
      containers:
      - name: container-runtime-gvisor-containerd
        image: europe-docker.pkg.dev/gardener-project/releases/gardener/extensions/runtime-gvisor-installation:v0.24.0
        command: ["/scripts/install-gvisor-containerd.sh"]
        securityContext:
          privileged: true
        volumeMounts:
        - name: host-volume
          mountPath: /var/host
        - name: install-gvisor
          mountPath: /scripts
      volumes:
      - name: host-volume
        hostPath:
          path: /
      - name: install-gvisor
        configMap:
          name: containerd-gvisor-a
          defaultMode: 0744
`
)

// TestTakeover: a seed switching from the extension in the field to this one converges without manual steps.
// The old ManagedResources are applied by gardener-resource-manager first (so their objects exist in the shoot);
// then our controller reconciles the same ManagedResource names with its content: our DaemonSet
// gvisor-installation-<pool> replaces containerd-gvisor-<pool> (a different name, so the immutable selector is no
// obstacle), the script ConfigMap and the old ServiceAccount are deleted, the RuntimeClass becomes ours, and the old
// mutable Secrets are garbage-collected. Nothing is left that nobody manages.
func TestTakeover(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "takeover", "1.33.4")
	ctx := context.Background()
	sh.createOldManagedResource(containerruntime.ManagedResourceName, oldRuntimeClassChart)
	sh.createOldManagedResource(containerruntime.InstallationManagedResourceName("a"), oldInstallationChart)
	sh.waitHealthy(containerruntime.ManagedResourceName)
	sh.waitHealthy(containerruntime.InstallationManagedResourceName("a"))
	oldDS := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "containerd-gvisor-a"}}
	oldCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "containerd-gvisor-a"}}
	oldSA := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "gvisor"}}
	for _, obj := range []client.Object{oldDS, oldCM, oldSA} {
		if !sh.exists(obj) {
			t.Fatalf("the field's extension's %T %s was not applied", obj, client.ObjectKeyFromObject(obj))
		}
	}
	if rc := sh.runtimeClass(); rc.Labels["app.kubernetes.io/managed-by"] != "" {
		t.Fatalf("the old RuntimeClass already looks like ours: %v", rc.Labels)
	}

	// Gardener now runs our extension: gardenlet annotates the ContainerRuntime for a reconcile.
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")

	sh.daemonSet("a")
	for _, obj := range []client.Object{oldDS, oldCM, oldSA} {
		sh.waitGone(obj)
	}
	sh.eventually("the RuntimeClass to be ours", func() error {
		rc := sh.runtimeClass()
		if rc.Labels["app.kubernetes.io/managed-by"] != "gardener-extension-runtime-gvisor" || rc.Handler != "runsc" {
			return fmt.Errorf("labels %v, handler %q", rc.Labels, rc.Handler)
		}
		return nil
	})
	for _, name := range []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("a")} {
		sh.waitGone(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: name}})
	}
	// Every Secret left is referenced by one of our ManagedResources.
	referenced := map[string]bool{}
	mrs := &resourcesv1alpha1.ManagedResourceList{}
	must(t, sh.c.List(ctx, mrs, client.InNamespace(sh.ns)))
	for _, mr := range mrs.Items {
		for _, ref := range mr.Spec.SecretRefs {
			referenced[ref.Name] = true
		}
	}
	sh.eventually("no unreferenced Secrets", func() error {
		for name := range sh.secrets() {
			if !referenced[name] {
				return fmt.Errorf("secret %s is referenced by no ManagedResource", name)
			}
		}
		return nil
	})
	// No DaemonSet of the old shape is left in the shoot.
	dss := &appsv1.DaemonSetList{}
	must(t, sh.c.List(ctx, dss, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"app.kubernetes.io/name": "containerd-gvisor"}))
	if len(dss.Items) > 0 {
		t.Errorf("%d DaemonSets of the field's extension left", len(dss.Items))
	}
}

// createOldManagedResource writes a ManagedResource as the field's extension did: a mutable Secret with the same name
// holding the chart under config.yaml, referenced by a ManagedResource without class or origin.
func (sh *testShoot) createOldManagedResource(name, chart string) {
	sh.t.Helper()
	ctx := context.Background()
	must(sh.t, sh.c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: name},
		Data:       map[string][]byte{"config.yaml": []byte(chart)},
	}))
	must(sh.t, sh.c.Create(ctx, &resourcesv1alpha1.ManagedResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: name},
		Spec:       resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: name}}},
	}))
}
