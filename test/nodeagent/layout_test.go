// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// releaseUnit is the OSC's gvisor-release.service ExecStop (argv).
func releaseUnit(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) []string {
	t.Helper()
	for _, u := range osc.Spec.Units {
		if u.Name != oscwebhook.ReleaseUnitName || u.Content == nil {
			continue
		}
		for _, line := range strings.Split(*u.Content, "\n") {
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStop="); ok {
				return strings.Fields(cmd)
			}
		}
	}
	t.Fatalf("the gVisor pool's OSC has no %s with an ExecStop: %+v", oscwebhook.ReleaseUnitName, osc.Spec.Units)
	return nil
}

// deactivateCommand is the release unit's ExecStop on the harness node as node-agent's stop of a unit that left
// the OSC runs it: --host-root the node's, and without --unless-enabled (node-agent has disabled the unit; the
// harness has no systemd to ask, the VM node of test/e2e runs the unit under its real one).
func deactivateCommand(ctx context.Context, t testing.TB, n *nodetest.Node, argv []string) *exec.Cmd {
	t.Helper()
	if len(argv) < 2 || argv[1] != "deactivate" || !slices.Contains(argv, "--unless-enabled="+oscwebhook.ReleaseUnitName) {
		t.Fatalf("%s's ExecStop is not `<installer> deactivate ... --unless-enabled=%s`: %q", oscwebhook.ReleaseUnitName, oscwebhook.ReleaseUnitName, argv)
	}
	args := []string{"deactivate"}
	for _, a := range argv[2:] {
		switch {
		case a == "--host-root=/":
			a = "--host-root=" + n.HostRoot()
		case strings.HasPrefix(a, "--unless-enabled="):
			continue
		}
		args = append(args, a)
	}
	return exec.CommandContext(ctx, n.HostPath(argv[0]), args...)
}

// assertDaemonSetLayout: the node the OSC mode activated holds exactly the release layout the DaemonSet mode's
// installer leaves for the same providerConfig: the real gvisor-installer install, as the installation chart runs
// it (the pool's runsc ConfigMap, the controller's sums, the image's release), into a scratch node with the same
// config.toml, gives the same links and byte-identical release files, runsc.toml included.
func (s *suite) assertDaemonSetLayout(t testing.TB, root string) {
	t.Helper()
	dir := t.TempDir()
	ds := filepath.Join(dir, "node")
	config, err := os.ReadFile(filepath.Join(root, nodecontract.ContainerdConfigPath))
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string, data []byte, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ds, nodecontract.ContainerdConfigPath), config, 0o644)
	installer := filepath.Join(dir, "gvisor-installer")
	write(installer, s.installer, 0o755)
	table, sums := daemonSetRunscConfig(t)
	write(filepath.Join(dir, "runsc", "runsc.toml"), table, 0o644)
	for arch, text := range sums {
		write(filepath.Join(dir, "runsc", nodecontract.AnchorFile(arch)), []byte(text), 0o644)
	}
	bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	out, err := exec.Command(installer, "install", "--host-root="+ds, "--source="+s.gvisorDir, "--bin-dir="+bin,
		"--runsc-config="+filepath.Join(dir, "runsc", "runsc.toml"), "--release-sums="+filepath.Join(dir, "runsc"),
		"--restart=none", "--prove-sandbox=false").CombinedOutput()
	if err != nil {
		t.Fatalf("the DaemonSet mode's gvisor-installer install: %v\n%s", err, out)
	}
	want, got := layoutOf(t, ds), layoutOf(t, root)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: the OSC mode left %q, the DaemonSet mode %q", k, clip(got[k]), clip(v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: only the OSC mode has it", k)
		}
	}
	t.Logf("the OSC mode's release layout is the DaemonSet mode's: %d entries, runsc.toml %q", len(got), got[runscconfig.NodePath+" (as read)"])
}

// layoutOf is the release layout on the node at root: the links' targets and the release files' contents.
func layoutOf(t testing.TB, root string) map[string]string {
	t.Helper()
	bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	got := map[string]string{}
	for _, link := range []string{runscconfig.NodePath, path.Join(bin, nodecontract.Runsc), path.Join(bin, nodecontract.Shim), path.Join(bin, nodecontract.CurrentLink)} {
		target, err := os.Readlink(filepath.Join(root, link))
		if err != nil {
			t.Errorf("%s: %v", link, err)
		}
		got[link+" ->"] = target
	}
	releasesDir := filepath.Join(root, bin, nodecontract.ReleasesDir)
	err := filepath.WalkDir(releasesDir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(releasesDir, p)
		got[path.Join(bin, nodecontract.ReleasesDir, filepath.ToSlash(rel))] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := hostfs.ResolveUnder(root, runscconfig.NodePath); err == nil {
		data, _ := os.ReadFile(p)
		got[runscconfig.NodePath+" (as read)"] = string(data)
	}
	return got
}

// daemonSetRunscConfig is what the DaemonSet mode's installation chart mounts for the gVisor pool of the shoot the
// OSCs are mutated for: the runsc ConfigMap's runsc.toml and SHA512SUMS.<arch> (render.NodeConfig).
func daemonSetRunscConfig(t testing.TB) ([]byte, map[string]string) {
	t.Helper()
	images, err := imagevector.Load(version.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.New(images)
	if err != nil {
		t.Fatal(err)
	}
	shoot := osctest.Shoot(true, osctest.ProviderConfig)
	crs := gardenerfixtures.ContainerRuntimes(osctest.Namespace, v1beta1constants.GardenerOperationReconcile, shoot.Spec.Provider.Workers...)
	// osctest's Shoot names no machine architecture, so both modes carry the sums of every architecture.
	objs, err := r.Shoot(render.Settings{DeliveryMode: delivery.DaemonSet}, render.ShootInput{ContainerRuntimes: crs,
		KubernetesVersion: osctest.KubernetesVersion})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs.Pools[0].Installation.Objects() {
		if cm, ok := o.(*corev1.ConfigMap); ok && cm.Data["runsc.toml"] != "" {
			sums := map[string]string{}
			for k, v := range cm.Data {
				if arch, ok := strings.CutPrefix(k, nodecontract.SumsFile+"."); ok {
					sums[arch] = v
				}
			}
			return []byte(cm.Data["runsc.toml"]), sums
		}
	}
	t.Fatal("the DaemonSet mode's installation has no runsc ConfigMap")
	return nil, nil
}

// assertNothingLeft: after gVisor left the pool nothing of it is on the node: no release layout, no links, no
// staged files, no runsc.toml.
func assertNothingLeft(t testing.TB, root string) {
	t.Helper()
	bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	for _, p := range []string{runscconfig.NodePath, path.Join(bin, nodecontract.Runsc), path.Join(bin, nodecontract.Shim), path.Join(bin, nodecontract.GVisorDir),
		path.Join(bin, oscwebhook.InstallerBinary), nodecontract.DropInPath} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s is still on the node after gVisor left the pool", p)
		}
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
