// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestBrokenReleaseOnRealNode rolls a gVisor release that cannot start a sandbox onto a working node, as an operator
// does with imageVectorOverwrite (the installation image and its gvisorReleaseSums), while a shoot owner's gVisor
// pod runs: the rolled installation pod is not Ready, EveryNodeReady turns False naming the node, the failed release
// and the release the node runs again; the running pod can still be exec'd and a new gVisor pod starts on the node.
func TestBrokenReleaseOnRealNode(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	imgs := ourImages(t)
	broken := brokenImages(t)
	helm := realcomponents.Helm(t)
	n, shoot := onRealNode(ctx, t, c, helm, thisChart, imgs, nil, broken.Built)
	key := client.ObjectKeyFromObject(shoot.ContainerRuntime)
	_, err := e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	app := e2e.ShootOwnerPod("default", "gvisor-app", new("gvisor"))
	_, err = e2e.RunPod(ctx, n, app, e2e.GVisorKernelLine, 2*time.Minute)
	testutil.Must(t, err)
	before := containerID(ctx, t, n, app)

	values := broken.ExtensionValues(t)
	values["imageVectorOverwrite"] = broken.ImageVectorOverwrite(t) + broken.sums
	values["controller"] = extensionValues(t, imgs, nil)["controller"]
	if err := e2e.InstallExtension(ctx, n, e2e.Install{Helm: helm, Chart: thisChart, Values: values}); err != nil {
		t.Fatalf("helm upgrade to the broken release: %v", err)
	}
	annotateReconcile(ctx, t, n, key)
	cond := waitCondition(ctx, t, n, key, gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	t.Logf("EveryNodeReady with the broken release: %s", cond.Message)
	for _, want := range []string{nodeName, "failed", "running release v", "gVisor sandbox did not start"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("EveryNodeReady's message lacks %q: %s", want, cond.Message)
		}
	}
	if after := containerID(ctx, t, n, app); after != before {
		t.Errorf("the gVisor pod's container changed: %s, then %s", before, after)
	}
	if out, err := e2e.Kubectl(ctx, n, "exec", "-n", "default", app.Name, "--", "dmesg"); err != nil || !strings.Contains(out, e2e.GVisorKernelLine) {
		t.Errorf("kubectl exec into the gVisor pod after the broken release: %v\n%s", err, out)
	}
	late := e2e.ShootOwnerPod("default", "gvisor-late", new("gvisor"))
	if _, err := e2e.RunPod(ctx, n, late, e2e.GVisorKernelLine, 2*time.Minute); err != nil {
		t.Errorf("a new gVisor pod on the node that fell back to its last proven release: %v", err)
	}
}

// brokenBuild is this tree's images with the broken release in the installation image, and the gvisorReleaseSums
// an operator writes for it.
type brokenBuild struct {
	*images.Built

	sums string
}

func brokenImages(t *testing.T) brokenBuild {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gvisor-broken")
	runsc, shim := installertest.BrokenRelease(t, dir)
	b := images.Build(t, images.Options{Registry: "registry.invalid/runtime-gvisor-broken", Tag: "broken", GVisorDir: dir})
	sums := fmt.Sprintf("gvisorReleaseSums:\n  version: broken-e2e\n  architectures:\n    %s:\n      runsc: %q\n      containerd-shim-runsc-v1: %q\n",
		runtime.GOARCH, sha512Hex(runsc), sha512Hex(shim))
	return brokenBuild{Built: b, sums: sums}
}

func sha512Hex(data []byte) string {
	sum := sha512.Sum512(data)
	return hex.EncodeToString(sum[:])
}
