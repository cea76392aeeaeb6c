package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// TestInstallationChartContract renders the real installation chart and checks it against this program: the
// command parses with our flags, the readiness probe is our `ready`, the runsc.toml of the ConfigMap passes our
// validation, and every node path the installer touches is mounted under --host-root (and nothing more).
func TestInstallationChartContract(t *testing.T) {
	images, err := imagevector.Load(version.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.New(images)
	if err != nil {
		t.Fatal(err)
	}
	const binDir = "/var/bin/containerruntimes"
	m, err := r.Installation(render.InstallationValues{
		WorkerPool:  "pool",
		BinaryPath:  binDir,
		ConfigFlags: map[string]string{"net-raw": "true", "debug": "true", "debug-log": "/var/log/runsc/", "platform": "systrap"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ds *appsv1.DaemonSet
	var cm *corev1.ConfigMap
	for _, o := range m.Objects() {
		switch obj := o.(type) {
		case *appsv1.DaemonSet:
			ds = obj
		case *corev1.ConfigMap:
			cm = obj
		}
	}
	if ds == nil || cm == nil {
		t.Fatalf("chart rendered no DaemonSet/ConfigMap: %s", m.YAML())
	}
	spec := ds.Spec.Template.Spec
	if spec.HostPID || spec.HostIPC || spec.HostNetwork {
		t.Errorf("DaemonSet uses host namespaces; the installer needs none")
	}
	c := spec.Containers[0]

	// The command is ours and parses.
	if len(c.Command) < 2 || c.Command[0] != "/gvisor-installer" || c.Command[1] != "install" {
		t.Fatalf("command = %v", c.Command)
	}
	fs, f := newFlagSet("install", io.Discard)
	if err := fs.Parse(c.Command[2:]); err != nil || fs.NArg() != 0 {
		t.Fatalf("chart's install flags do not parse: %v %v", err, fs.Args())
	}
	if !f.idle || f.readyFile == "" || f.restart != "systemd" || f.binDir != binDir || f.runscConfig == "" {
		t.Errorf("chart does not run the DaemonSet mode of the contract: %+v", f)
	}
	probe := c.ReadinessProbe.Exec.Command
	if len(probe) != 3 || probe[0] != "/gvisor-installer" || probe[1] != "ready" || probe[2] != "--ready-file="+f.readyFile {
		t.Errorf("readiness probe %v does not check %s", probe, f.readyFile)
	}

	// runsc.toml as rendered passes our validation with the flags sorted.
	flags, err := runscconfig.Validate("runsc.toml", []byte(cm.Data["runsc.toml"]))
	if err != nil || strings.Join(flags, ",") != "debug,debug-log,net-raw,platform" {
		t.Errorf("ConfigMap runsc.toml: %v %v\n%s", flags, err, cm.Data["runsc.toml"])
	}

	// Every node path we touch is under a mount below --host-root; the config and ready file too.
	mounts := map[string]bool{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.MountPath] = true
	}
	for _, nodePath := range []string{binDir, filepath.Dir(containerdconfig.ConfigPath), filepath.Dir(verify.CRISocket), filepath.Dir(restart.SystemBusSocket)} {
		if !mounts[f.hostRoot+nodePath] {
			t.Errorf("%s is not mounted at %s%s", nodePath, f.hostRoot, nodePath)
		}
	}
	for _, p := range []string{f.runscConfig, f.readyFile} {
		if !mounts[filepath.Dir(p)] {
			t.Errorf("%s is not on a volume mount", p)
		}
	}
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == f.hostRoot || vm.MountPath == f.hostRoot+"/" {
			t.Errorf("the node's whole / is mounted")
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("installer container should have a read-only root filesystem (it writes only to mounts)")
	}
}
