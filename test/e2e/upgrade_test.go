// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// previousRelease is the tree an upgrade starts from: the last one that landed before this tree's images were built
// by pkg/images, standing in for the last release until one is tagged (imagevector pins v0.1.0, VERSION is
// v0.1.0-dev). Its chart and its binaries, in images built with this tree's definition, are what an operator runs
// before the upgrade. Move it to the last release's commit at each release.
const previousRelease = "f93fe2ae83b9cfce03554420bf5d45c594b47f9a"

// TestUpgradeOnRealNode upgrades the extension on a real node from the previous release's chart and images to this
// tree's, as an operator does with helm, while a shoot owner's gVisor pod runs: the controller rolls, the
// installation pod rolls to this tree's image at the shoot's next reconcile and becomes Ready, and the gVisor pod
// keeps running in the same container and can still be exec'd. A chart of this tree that passes its binaries a
// flag they lack fails here (the rolled pods do not become Ready), beside the chart contract test of charts/.
func TestUpgradeOnRealNode(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	prev := images.Build(t, images.Options{SourceDir: previousTree(t), Registry: "registry.invalid/runtime-gvisor-previous", Tag: "previous"})
	imgs := ourImages(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	helm := realcomponents.Helm(t)
	prevChart := filepath.Join(prev.SourceDir, "charts/gardener-extension-runtime-gvisor")
	n, shoot := onRealNode(ctx, t, c, helm, prevChart, prev, nil, imgs)
	pool, key := shoot.Worker.Name, client.ObjectKeyFromObject(shoot.ContainerRuntime)
	waitInstallationImage(ctx, t, n, pool, prev.Installation().Ref)
	_, err := e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	app := e2e.ShootOwnerPod("default", "gvisor-app", new("gvisor"))
	_, err = e2e.RunPod(ctx, n, app, e2e.GVisorKernelLine, 2*time.Minute)
	testutil.Must(t, err)
	before := containerID(ctx, t, n, app)

	if err := e2e.InstallExtension(ctx, n, e2e.Install{Helm: helm, Chart: thisChart, Values: extensionValues(t, imgs, nil)}); err != nil {
		t.Fatalf("helm upgrade to this tree's chart and images: %v", err)
	}
	annotateReconcile(ctx, t, n, key) // the shoot's next reconcile, as gardenlet does
	waitInstallationImage(ctx, t, n, pool, imgs.Installation().Ref)
	_, err = e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	if after := containerID(ctx, t, n, app); after != before {
		t.Errorf("the gVisor pod's container changed across the upgrade: %s, then %s", before, after)
	}
	if out, err := e2e.Kubectl(ctx, n, "exec", "-n", "default", app.Name, "--", "dmesg"); err != nil || !strings.Contains(out, e2e.GVisorKernelLine) {
		t.Errorf("kubectl exec into the gVisor pod after the upgrade: %v\n%s", err, out)
	}
}

// previousTree extracts previousRelease from this repository's history (git archive) into a directory of the test.
func previousTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.Command("git", "-C", "../..", "archive", "--format=tar", previousRelease)
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	testutil.Must(t, err)
	untar.Stdin = pipe
	var stderr strings.Builder
	archive.Stderr = &stderr
	testutil.Must(t, untar.Start())
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s (the previous release's tree; a shallow clone lacks it: fetch the history): %v\n%s", previousRelease, err, stderr.String())
	}
	testutil.Must(t, untar.Wait())
	if _, err := os.Stat(filepath.Join(dir, "charts/gardener-extension-runtime-gvisor/Chart.yaml")); err != nil {
		t.Fatalf("the previous release's tree has no extension chart: %v", err)
	}
	return dir
}

// waitInstallationImage waits until the pool's installation pod on the node runs ref's image and is Ready.
func waitInstallationImage(ctx context.Context, t *testing.T, n *kubenode.Node, pool, ref string) {
	t.Helper()
	_, err := e2e.InstallationPod(ctx, n.Client(), pool, n.Name(), 4*time.Minute, func(p *corev1.Pod) error {
		if got := p.Spec.InitContainers[0].Image; got != ref {
			return fmt.Errorf("pod %s runs %s, want %s", p.Name, got, ref)
		}
		return e2e.PodReady(p)
	})
	testutil.Must(t, err)
}

// annotateReconcile annotates the ContainerRuntime for a reconcile, as gardenlet does at the shoot's reconcile.
func annotateReconcile(ctx context.Context, t *testing.T, n *kubenode.Node, key client.ObjectKey) {
	t.Helper()
	cr := &extensionsv1alpha1.ContainerRuntime{}
	testutil.Must(t, n.Client().Get(ctx, key, cr))
	patch := client.MergeFrom(cr.DeepCopy())
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
	testutil.Must(t, n.Client().Patch(ctx, cr, patch))
}
