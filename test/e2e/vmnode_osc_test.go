// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	pkgimages "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/ociregistry"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/vmnode"
)

// oscModeNode is the VM node of the OperatingSystemConfig delivery mode: gardener-node-agent delivers gVisor.
type oscModeNode struct {
	*gardenersNode

	// secret is the pool's OSC secret in the shoot's kube-system, as node-agent reads it.
	secret *corev1.Secret
	// kubelet is the kubelet's binary (the seed's release).
	kubelet string
	// registry is the test registry's host:port as the node reaches it.
	registry string
}

// TestOSCModeOnGardenersNode runs the extension as it ships in the OperatingSystemConfig delivery mode on a node
// like Gardener's (test/vmnode: systemd as PID 1, cgroup v2, the systemd cgroup driver). The seed gets the chart
// with deliveryMode operatingsystemconfig and this tree's images, the installation image pushed to a registry the
// node pulls from; gardenlet's reconcile OSC of the gVisor pool (built by gardenlet's own component) is written to
// the seed and mutated there by the extension's deployed webhook; Gardener's own code turns it into the pool's OSC
// secret. On the node, Gardener's gardener-node-agent (the release go.mod pins, run as the unit Gardener writes)
// applies it through the node's systemd before any kubelet runs: it registers runsc in containerd's config.toml,
// pulls runsc, the shim and the installer out of the installation image, and starts the sandbox-proof unit, which
// proves a runsc sandbox. Then the kubelet joins; node-agent reports the OSC applied on the Node, the extension's
// health conditions turn True from it, and a shoot owner's gVisor pod runs in its pod slice. A proof that fails on
// the node reaches EveryNodeReady through node-agent's systemd-unit check, and heals with it. The node reboots: the
// pod runs again, node-agent changes nothing and containerd starts once. Then gVisor leaves the pool as Gardener
// takes it out: node-agent applies the webhook's remove entry, and nothing of gVisor is left on the node.
//
// gardenlet's own units and files of the OSC (its kubelet, node-agent's own unit, its images from Gardener's
// registry) are left out of the secret: the harness runs the kubelet, node-agent is installed as Gardener's
// provisioning does, and this machine reaches no registry but the test's.
func TestOSCModeOnGardenersNode(t *testing.T) {
	// Its steps' bounds grow with the guest's pace; 30 minutes cover them at the measured 13 minutes alone.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	t0 := time.Now()
	o := oscModeOnGardenersNode(ctx, t)
	tAgent := time.Now()
	o.startNodeAgent(ctx, t)
	o.proofPassedBeforeKubelet(ctx, t)
	t.Logf("gardener-node-agent started to the sandbox proof passed: %.1fs", time.Since(tAgent).Seconds())
	o.join(ctx, t)
	o.applied(ctx, t)
	cr, err := e2e.WaitConditions(ctx, o.seed.Client(), client.ObjectKeyFromObject(o.shoot.ContainerRuntime), o.vm.Bound(3*time.Minute), healthy)
	testutil.Must(t, err)
	t.Logf("conditions: %v", cr.Status.Conditions)
	app := o.firstGVisorPod(ctx, t, t0)
	o.inItsPodSlice(ctx, t, app)
	o.metricServerOnlyForTheShoot(ctx, t, app)
	o.proofFailureReported(ctx, t)
	o.reboot(ctx, t, app)
	o.removeGVisor(ctx, t, app)
}

// proofFailureReported puts a runsc that is not the release's where node-agent staged it (the activation refuses
// it; it would otherwise repair a broken release from the staged one) and runs the proof unit: node-agent's
// systemd-unit check reports the failed unit on the Node (SystemdUnitsReady), and EveryNodeReady turns False naming
// the node and the unit. Repaired and proven again, both turn back.
func (o *oscModeNode) proofFailureReported(ctx context.Context, t *testing.T) {
	t.Helper()
	key := client.ObjectKeyFromObject(o.shoot.ContainerRuntime)
	staged := "/var/bin/containerruntimes/" + nodecontract.StagedRelease + "/runsc"
	o.run(ctx, t, "mv "+staged+" /root/runsc.staged && echo broken >"+staged+" && chmod +x "+staged+"; systemctl start "+oscwebhook.ProofUnitName+" || true")
	if result, _ := o.proofResult(ctx, t); result == "success" {
		t.Fatalf("%s passed with a staged runsc that is not the release's", oscwebhook.ProofUnitName)
	}
	if current := o.run(ctx, t, "readlink /var/bin/containerruntimes/"+nodecontract.CurrentLink); !strings.HasPrefix(current, "releases/") {
		t.Errorf("the refused release took the node's current release away: current -> %q", current)
	}
	cond := waitCondition(ctx, t, o.seed, key, gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	t.Logf("EveryNodeReady with the proof failing on the node: %s", cond.Message)
	for _, want := range []string{vmNodeName, oscwebhook.ProofUnitName} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("EveryNodeReady's message lacks %q: %s", want, cond.Message)
		}
	}
	o.run(ctx, t, "mv /root/runsc.staged "+staged+"; systemctl start "+oscwebhook.ProofUnitName)
	_, err := e2e.WaitConditions(ctx, o.seed.Client(), key, o.vm.Bound(4*time.Minute), healthy)
	testutil.Must(t, err)
}

// oscModeOnGardenersNode starts the seed with the extension in the OSC mode, boots and provisions the VM node (no
// kubelet yet), and writes the shoot, its ContainerRuntime, the pool's OSC (mutated by the deployed webhook) and
// the pool's OSC secret.
func oscModeOnGardenersNode(ctx context.Context, t *testing.T) *oscModeNode {
	t.Helper()
	s := startVMSeed(ctx, t)
	imgs, shoot, seed := s.imgs, s.shoot, s.seed
	helm := realcomponents.Helm(t)
	disk, crictl := realcomponents.VMNode(t), realcomponents.Crictl(t)
	registry, err := ociregistry.Start(seed.Listen, seed.Dial)
	testutil.Must(t, err)
	t.Cleanup(func() { testutil.Must(t, registry.Stop()) })
	installation := pushInstallationImage(ctx, t, registry, imgs.Installation())

	nodeImgs := nodetest.BuildImages(t, nodetest.NodeTools(t))
	booted := bootInBackground(ctx, vmnode.Config{
		Disk: disk, Network: seed, Forward: []int{vmnode.KubeletPort, render.MetricServerPort}, ForwardAddress: vmnode.GuestIP, Log: vmnode.TestLog(t),
	}, vmnode.Provision{
		Containerd: s.containerd.Dir, Crictl: crictl, SandboxImage: nodetest.PauseImage, Images: []string{nodeImgs.Pause, nodeImgs.Busybox},
	})
	// With sandbox metrics: the node's metric server unit, answering the shoot's networks only.
	values := extensionValues(t, imgs, map[string]any{"sandboxMetrics": true})
	vmShootNetworks(t, shoot)
	values["deliveryMode"] = "operatingsystemconfig"
	values["replicaCount"] = 2
	values["imageVectorOverwrite"] = imageVectorOverwriteWith(t, imgs, imagevector.ImageNameInstallation, installation)
	startExtensionWith(ctx, t, seed, helm, thisChart, values)
	vm, err := booted()
	testutil.Must(t, err)
	o := &oscModeNode{gardenersNode: &gardenersNode{seed: seed, vm: vm, shoot: shoot}, kubelet: s.kubelet}
	t.Cleanup(func() {
		if t.Failed() {
			bg := context.Background()
			t.Logf("--- VM node: gardener-node-agent ---\n%s\n--- VM node: sandbox proof ---\n%s\n--- VM node: kubelet ---\n%s\n--- VM node: containerd ---\n%s\n--- VM node: console ---\n%s",
				vm.Journal(bg, "gardener-node-agent", 60), vm.Journal(bg, oscwebhook.ProofUnitName, 20),
				vm.Journal(bg, "kubelet", 30), vm.Journal(bg, "containerd", 30), vm.Console(20))
		}
		testutil.Must(t, vm.Stop())
	})
	testutil.Must(t, shoot.Create(ctx, seed))
	testutil.Must(t, shoot.CreateContainerRuntime(ctx, seed))
	o.registry = fmt.Sprintf("%s:%d", vmnode.HostIP, registry.Port)
	o.secret = o.poolSecret(ctx, t)
	return o
}

// pushInstallationImage pushes the installation image to registry under its own repository path and tag, and
// returns its reference as the VM node pulls it (through HostIP).
func pushInstallationImage(ctx context.Context, t *testing.T, registry *ociregistry.Registry, img images.Image) name.Tag {
	t.Helper()
	repo, err := name.NewRepository(img.Repository)
	testutil.Must(t, err)
	_, err = registry.Push(ctx, repo.RepositoryStr(), img.Tag, img.Read(t))
	testutil.Must(t, err)
	ref, err := name.NewTag(fmt.Sprintf("%s:%d/%s:%s", vmnode.HostIP, registry.Port, repo.RepositoryStr(), img.Tag), name.Insecure)
	testutil.Must(t, err)
	return ref
}

// imageVectorOverwriteWith is the extension chart's imageVectorOverwrite for imgs with image imageName at ref.
func imageVectorOverwriteWith(t *testing.T, imgs *images.Built, imageName string, ref name.Tag) string {
	t.Helper()
	refs := map[string]name.Tag{imageName: ref}
	for n, img := range imgs.Images {
		if n == imageName {
			continue
		}
		r, err := name.NewTag(img.Repository+":"+img.Tag, name.StrictValidation)
		testutil.Must(t, err)
		refs[n] = r
	}
	data, err := pkgimages.ImageVectorOverwrite(refs)
	testutil.Must(t, err)
	return string(data)
}

// poolSecret writes gardenlet's reconcile OSC of the gVisor pool to the seed, where the extension's webhook mutates
// it, and puts the pool's OSC secret, computed by Gardener's own code from what the seed stored, into the shoot's
// kube-system.
func (o *oscModeNode) poolSecret(ctx context.Context, t *testing.T) *corev1.Secret {
	t.Helper()
	oscs := o.gardenletOSCs(t)
	osc := o.asGardenletWrites(oscs.Reconcile)
	seed := o.seed.Client()
	testutil.Must(t, seed.Create(ctx, osc))
	// The controller registers the webhook as it starts: an OSC written before that is mutated at its next write,
	// as gardenlet's next reconcile would.
	touches := 0
	err := e2e.Poll(ctx, o.vm.Bound(2*time.Minute), 2*time.Second, "the extension's webhook to add gVisor to the pool's OSC", func() error {
		if err := seed.Get(ctx, client.ObjectKeyFromObject(osc), osc); err != nil {
			return err
		}
		if oscstate.Classify(osc).Carries() {
			return nil
		}
		touches++
		patch := client.MergeFrom(osc.DeepCopy())
		metav1.SetMetaDataAnnotation(&osc.ObjectMeta, "test.runtime-gvisor/write", fmt.Sprint(touches))
		if err := seed.Patch(ctx, osc, patch); err != nil {
			return err
		}
		return fmt.Errorf("the OSC carries %+v of gVisor", oscstate.Classify(osc))
	})
	testutil.Must(t, err)
	ours := withoutGardenlets(osc, oscs.Reconcile)
	t.Logf("the webhook added to the pool's OSC: units %v, files %v", unitNames(ours.Spec.Units), filePaths(ours.Spec.Files))
	secret := gardenerfixtures.OSCSecret(seed, ours, oscs.SecretName, o.shoot.Worker.Name)
	testutil.Must(t, seed.Create(ctx, secret))
	return secret
}

// gardenletOSCs are the gVisor pool's OSCs as gardenlet's component computes them for the Cluster's shoot.
func (o *oscModeNode) gardenletOSCs(t *testing.T) gardenerfixtures.PoolOSCs {
	t.Helper()
	shoot, err := o.shoot.GardenerShoot()
	testutil.Must(t, err)
	return gardenerfixtures.OperatingSystemConfigs(shoot)[o.shoot.Worker.Name]
}

// asGardenletWrites is gardenlet's OSC as this landscape's gardenlet writes it: the node's imported pause image as
// the sandbox image, and the test registry as a plain-http mirror of itself (what node-agent writes into
// /etc/containerd/certs.d).
func (o *oscModeNode) asGardenletWrites(gardenlets *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	osc := gardenlets.DeepCopy()
	osc.Spec.CRIConfig.Containerd.SandboxImage = nodetest.PauseImage
	osc.Spec.CRIConfig.Containerd.Registries = append(osc.Spec.CRIConfig.Containerd.Registries, extensionsv1alpha1.RegistryConfig{
		Upstream: o.registry, Server: ptr.To("http://" + o.registry),
		Hosts: []extensionsv1alpha1.RegistryHost{{
			URL: "http://" + o.registry, Capabilities: []extensionsv1alpha1.RegistryCapability{extensionsv1alpha1.PullCapability, extensionsv1alpha1.ResolveCapability},
		}},
	})
	return osc
}

// removeGVisor takes gVisor out of the pool as Gardener does: the Cluster's shoot without it, the ContainerRuntime
// deleted, gardenlet's next write of the pool's OSC (mutated by the webhook: the remove entry, our files and units
// gone) and the pool's secret from it. node-agent applies it: runsc is unregistered (containerd restarted), our
// files and units are gone, and a runc pod still runs on the node.
func (o *oscModeNode) removeGVisor(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	seed := o.seed.Client()
	// The shoot owner's gVisor pods go first: the removal keeps a release that a running sandbox still uses (that
	// sandbox must still be stopped by its runsc), so only a node without gVisor pods is left with nothing.
	testutil.Must(t, client.IgnoreNotFound(seed.Delete(ctx, app)))
	err := e2e.Poll(ctx, o.vm.Bound(3*time.Minute), 2*time.Second, "the gVisor pod and its sandbox to be gone", func() error {
		if err := seed.Get(ctx, client.ObjectKeyFromObject(app), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("pod %s still there (%v)", app.Name, err)
		}
		if used := o.run(ctx, t, "grep -rls --include=*.json /var/bin/containerruntimes/gvisor/releases /run/containerd/io.containerd.runtime.v2.task 2>/dev/null || true"); used != "" {
			return fmt.Errorf("sandbox bundles still name a gVisor release: %s", used)
		}
		return nil
	})
	testutil.Must(t, err)
	invocation := o.run(ctx, t, "systemctl show -p InvocationID --value containerd")
	shoot, err := o.shoot.GardenerShoot()
	testutil.Must(t, err)
	for i := range shoot.Spec.Provider.Workers {
		if w := &shoot.Spec.Provider.Workers[i]; w.Name == o.shoot.Worker.Name && w.CRI != nil {
			w.CRI.ContainerRuntimes = nil
		}
	}
	raw, err := json.Marshal(shoot)
	testutil.Must(t, err)
	o.shoot.Cluster.Spec.Shoot.Raw = raw
	cluster := &extensionsv1alpha1.Cluster{}
	testutil.Must(t, seed.Get(ctx, client.ObjectKeyFromObject(o.shoot.Cluster), cluster))
	cluster.Spec.Shoot.Raw = raw
	testutil.Must(t, seed.Update(ctx, cluster))
	testutil.Must(t, e2e.DeleteContainerRuntime(ctx, o.seed, client.ObjectKeyFromObject(o.shoot.ContainerRuntime), o.vm.Bound(3*time.Minute)))

	oscs := o.gardenletOSCs(t)
	if oscs.SecretName != o.secret.Name {
		t.Fatalf("gardenlet's key of the pool changed without gVisor (%s, was %s): its nodes would be replaced, not changed", oscs.SecretName, o.secret.Name)
	}
	osc := &extensionsv1alpha1.OperatingSystemConfig{}
	err = e2e.Poll(ctx, o.vm.Bound(2*time.Minute), 2*time.Second, "the extension's webhook to put the remove entry into the pool's OSC", func() error {
		if err := seed.Get(ctx, client.ObjectKeyFromObject(oscs.Reconcile), osc); err != nil {
			return err
		}
		if c := oscstate.Classify(osc); c.Entry == oscstate.Remove && len(c.Files) == 0 {
			return nil
		}
		osc.Spec = o.asGardenletWrites(oscs.Reconcile).Spec
		if err := seed.Update(ctx, osc); err != nil {
			return err
		}
		return fmt.Errorf("the OSC carries %+v of gVisor", oscstate.Classify(osc))
	})
	testutil.Must(t, err)
	secret := gardenerfixtures.OSCSecret(seed, withoutGardenlets(osc, oscs.Reconcile), oscs.SecretName, o.shoot.Worker.Name)
	live := &corev1.Secret{}
	testutil.Must(t, seed.Get(ctx, client.ObjectKeyFromObject(secret), live))
	live.Annotations, live.Labels, live.Data = secret.Annotations, secret.Labels, secret.Data
	testutil.Must(t, seed.Update(ctx, live))
	o.secret = live
	t0 := time.Now()
	o.applied(ctx, t)
	t.Logf("node-agent applied the OSC without gVisor (remove entry) %.1fs after the pool's secret changed", time.Since(t0).Seconds())

	if after := o.run(ctx, t, "systemctl show -p InvocationID --value containerd"); after == invocation {
		t.Errorf("containerd was not restarted after node-agent unregistered runsc")
	}
	if n := o.run(ctx, t, "containerd config dump | grep -c 'runtimes.runsc' || true"); n != "0" {
		t.Errorf("containerd's effective config still registers runsc after the removal:\n%s", o.run(ctx, t, "containerd config dump | grep -A3 'runtimes.runsc'"))
	}
	if left := o.run(ctx, t, `ls -A /var/bin/containerruntimes 2>/dev/null; ls /etc/containerd/runsc.toml /etc/containerd/conf.d/gvisor-runsc.toml 2>/dev/null || true
for u in gvisor-sandbox-proof.service gvisor-sandbox-proof.timer gvisor-release.service; do [ "$(systemctl show -p LoadState --value $u)" = not-found ] || echo "$u"; done`); left != "" {
		t.Errorf("gVisor left on the node after node-agent applied its removal: %s\n%s\n%s", left,
			o.run(ctx, t, "find /var/bin/containerruntimes /etc/containerd/runsc.toml 2>/dev/null || true"), o.vm.Journal(ctx, oscwebhook.ReleaseUnitName, 20))
	}
	runc := e2e.ShootOwnerPod("default", "runc-app", nil)
	runc.Spec.NodeName = vmNodeName
	if _, err := e2e.RunPod(ctx, o.seed, runc, "Linux version", o.vm.Bound(3*time.Minute)); err != nil {
		t.Errorf("a runc pod on the node after gVisor left it: %v", err)
	}
}

// withoutGardenlets is the mutated osc without the units and files gardenlet wrote (those of gardenlets): what the
// extension's webhook added, with the OSC's criConfig.
func withoutGardenlets(osc, gardenlets *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	out := osc.DeepCopy()
	out.Spec.Units = slices.DeleteFunc(out.Spec.Units, func(u extensionsv1alpha1.Unit) bool {
		return slices.ContainsFunc(gardenlets.Spec.Units, func(g extensionsv1alpha1.Unit) bool { return g.Name == u.Name })
	})
	out.Spec.Files = slices.DeleteFunc(out.Spec.Files, func(f extensionsv1alpha1.File) bool {
		return slices.ContainsFunc(gardenlets.Spec.Files, func(g extensionsv1alpha1.File) bool { return g.Path == f.Path })
	})
	return out
}

func unitNames(units []extensionsv1alpha1.Unit) []string {
	var out []string
	for _, u := range units {
		out = append(out, u.Name)
	}
	return out
}

func filePaths(files []extensionsv1alpha1.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// startNodeAgent installs and starts gardener-node-agent on the VM node, reading the pool's OSC secret. It
// authenticates with a client certificate in the cluster's admin group: the node-agent-authorizer webhook Gardener
// puts in front of node-agent's requests is not part of this test.
func (o *oscModeNode) startNodeAgent(ctx context.Context, t *testing.T) {
	t.Helper()
	kubeconfig, err := o.seed.Kubeconfig("gardener-node-agent", "gardener.cloud:node-agent:machine:"+vmNodeName, "system:masters")
	testutil.Must(t, err)
	testutil.Must(t, o.vm.StartNodeAgent(ctx, vmnode.NodeAgent{
		Binary: realcomponents.NodeAgent(t), Kubeconfig: kubeconfig, SecretName: o.secret.Name,
		KubernetesVersion: semver.MustParse(kubernetesVersion), Hostname: vmNodeName,
	}))
}

// proofResult is the sandbox-proof unit's last result and whether it ran to an end since the boot.
func (o *oscModeNode) proofResult(ctx context.Context, t *testing.T) (result string, ended bool) {
	t.Helper()
	out := o.run(ctx, t, "systemctl show -p Result -p ExecMainExitTimestampMonotonic "+oscwebhook.ProofUnitName)
	props := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			props[k] = v
		}
	}
	return props["Result"], props["ExecMainExitTimestampMonotonic"] != "" && props["ExecMainExitTimestampMonotonic"] != "0"
}

// waitProof waits until the sandbox-proof unit ran to an end since the boot and checks that it passed.
func (o *oscModeNode) waitProof(ctx context.Context, t *testing.T) {
	t.Helper()
	var result string
	err := e2e.Poll(ctx, o.vm.Bound(8*time.Minute), 2*time.Second, "the sandbox-proof unit to run", func() error {
		var ended bool
		if result, ended = o.proofResult(ctx, t); !ended {
			return fmt.Errorf("%s has not ended a run since the boot", oscwebhook.ProofUnitName)
		}
		return nil
	})
	testutil.Must(t, err)
	if result != "success" {
		t.Fatalf("%s ended with %q, want success:\n%s", oscwebhook.ProofUnitName, result, o.vm.Journal(ctx, oscwebhook.ProofUnitName, 20))
	}
	t.Logf("the sandbox proof: %s", lastLine(o.vm.Journal(ctx, oscwebhook.ProofUnitName, 5)))
}

// proofPassedBeforeKubelet waits for node-agent's sandbox proof and checks that no kubelet ran yet: the node is
// ready for gVisor before it registers.
func (o *oscModeNode) proofPassedBeforeKubelet(ctx context.Context, t *testing.T) {
	t.Helper()
	o.waitProof(ctx, t)
	if kubelet := o.run(ctx, t, "systemctl show -p LoadState --value kubelet"); kubelet != "not-found" {
		t.Errorf("the node has a kubelet unit (%s) before it joined", kubelet)
	}
	// The activation put the staged release in the release layout, as the DaemonSet's installer does.
	bin := "/var/bin/containerruntimes"
	if link := o.run(ctx, t, "readlink "+runscconfig.NodePath+" "+bin+"/runsc"); link != runscconfig.LinkTarget(bin)+"\n"+nodecontract.PathLink("runsc") {
		t.Errorf("runsc.toml and runsc are not the release layout's links: %q", link)
	}
	if toml := o.run(ctx, t, "cat "+runscconfig.NodePath); !strings.Contains(toml, runscconfig.BinaryName+` = "`+bin+"/"+nodecontract.ReleasesDir+"/") {
		t.Errorf("the node's runsc.toml does not name its release's runsc:\n%s", toml)
	}
}

// join joins the VM's kubelet with the labels gardenlet gives the pool's kubelets (their OSC secret's name among
// them) and waits for the Node.
func (o *oscModeNode) join(ctx context.Context, t *testing.T) {
	t.Helper()
	shoot, err := o.shoot.GardenerShoot()
	testutil.Must(t, err)
	kubeconfig, err := o.seed.Kubeconfig("vm-kubelet", "system:node:"+vmNodeName, "system:nodes")
	testutil.Must(t, err)
	testutil.Must(t, o.vm.JoinCluster(ctx, vmnode.Join{
		Kubelet: o.kubelet, Kubeconfig: kubeconfig, NodeName: vmNodeName,
		Labels: gardenerfixtures.NodeLabels(shoot, o.shoot.Worker, o.secret.Name), ServiceIP: kubenode.KubernetesServiceIP,
	}))
	o.waitNodeReady(ctx, t)
}

// applied waits until node-agent reports on the Node that it applied the pool's OSC (the annotation gardenlet and
// the extension's health check read), after the kubelet registered it.
func (o *oscModeNode) applied(ctx context.Context, t *testing.T) {
	t.Helper()
	want := o.secret.Annotations[nodeagentconfigv1alpha1.AnnotationKeyChecksumDownloadedOperatingSystemConfig]
	err := e2e.Poll(ctx, o.vm.Bound(4*time.Minute), 2*time.Second, "node-agent to report the OSC applied on Node "+vmNodeName, func() error {
		var node corev1.Node
		if err := o.seed.Client().Get(ctx, client.ObjectKey{Name: vmNodeName}, &node); err != nil {
			return err
		}
		if got := node.Annotations[nodeagentconfigv1alpha1.AnnotationKeyChecksumAppliedOperatingSystemConfig]; got != want {
			return fmt.Errorf("annotation %s is %q, want the pool secret's %q", nodeagentconfigv1alpha1.AnnotationKeyChecksumAppliedOperatingSystemConfig, got, want)
		}
		return nil
	})
	testutil.Must(t, err)
}

// oscNodeState is what the node holds of gVisor in the OSC mode: the checksums of containerd's and runsc's config
// and of the bin dir's files, and node-agent's temporaries (none may be left).
const oscNodeState = `cd /etc/containerd && sha256sum config.toml runsc.toml
find /var/bin/containerruntimes -type f | sort | xargs sha256sum
find /etc/containerd /var/bin/containerruntimes -name '*.tmp*'`

// reboot reboots the node: node-agent finds the OSC applied and changes nothing, containerd starts once, the proof
// passes again and the gVisor pod runs again.
func (o *oscModeNode) reboot(ctx context.Context, t *testing.T, app *corev1.Pod) {
	t.Helper()
	o.rebootKeeps(ctx, t, app, oscNodeState, "node-agent", func() { o.waitProof(ctx, t) })
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
