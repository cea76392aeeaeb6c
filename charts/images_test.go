// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// bogusFlag is the flag the negative cases add to a chart: no binary of ours has it.
const bogusFlag = "--no-binary-has-this-flag"

// TestChartCommandsRunInTheirImages: every container of ours, as the charts render it for operators (the
// extension chart's Deployment with helm, the admission runtime chart's Deployment with helm, the installation
// DaemonSet with the controller's renderer: its init container, its idle container and its readiness probe), runs a
// binary that the image built from this tree has at the command's path, and that binary accepts exactly the args:
// it runs in its parse-only mode (package argcheck) with the container's environment. A chart that passes a flag
// its image's binary does not have fails here (the bogus-flag cases prove it), not in a crash-looping pod.
func TestChartCommandsRunInTheirImages(t *testing.T) {
	realcomponents.Helm(t) // skips (fails under REQUIRE_REAL_COMPONENTS=1) without the helm CLI, before the build
	built := images.Build(t, images.Options{})
	ex := newExtractor(t, built)
	overwrite := built.WriteImageVectorOverwrite(t)
	extension := []string{"-f", built.WriteExtensionValues(t)}

	var pods []podUnderTest
	for name, args := range map[string][]string{
		"defaults":        nil,
		"gardener values": {"-f", "testdata/gardener-injected-values.yaml"},
		"everything set": {"--set", "leaderElection.enabled=false", "--set", "controller.disableControllers={heartbeat}",
			"--set", "controller.readinessGate=true", "--set", "controller.proveSandbox=false", "--set", "logLevel=debug",
			"--set", "logFormat=text", "--set", "deliveryMode=operatingsystemconfig", "--set", "replicaCount=2", "--set", "gardener.version=v1.149.3"},
	} {
		_, c := decode(t, template(t, append(args, extension...)...)).deployment(t)
		pods = append(pods, podUnderTest{"extension chart, " + name, corev1.PodSpec{Containers: []corev1.Container{c}}})
	}
	for _, d := range decodeAdmission(t, templateAdmission(t, admissionRuntime, "-f", built.WriteAdmissionValues(t))).deployments {
		pods = append(pods, podUnderTest{"admission runtime chart", d.Spec.Template.Spec})
	}
	r, err := render.Load(built.Version, overwrite)
	if err != nil {
		t.Fatal(err)
	}
	pods = append(pods, installationPods(t, r)...)

	for _, p := range pods {
		t.Run(p.name, func(t *testing.T) {
			for _, err := range ex.check(t, p.spec) {
				t.Error(err)
			}
		})
	}
	t.Run("a flag the binary does not have fails", func(t *testing.T) { checkBogusFlags(t, ex, built, overwrite) })
}

// podUnderTest is one rendered pod spec and where it comes from.
type podUnderTest struct {
	name string
	spec corev1.PodSpec
}

// installationPods renders the installation DaemonSet as the controller does, in every mode it has.
func installationPods(t *testing.T, r *render.Renderer) []podUnderTest {
	t.Helper()
	var out []podUnderTest
	for _, mode := range []render.Mode{render.ModeInstall, render.ModeUninstall} {
		for _, gate := range []bool{false, true} {
			for _, skipProof := range []bool{false, true} {
				m, err := r.Installation(render.InstallationValues{
					WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes", Mode: mode, ReadinessGate: gate, SkipSandboxProof: skipProof,
					ConfigFlags: map[string]string{"platform": "systrap"},
				})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("installation DaemonSet, %s, readinessGate=%v, skipSandboxProof=%v", mode, gate, skipProof)
				out = append(out, podUnderTest{name, daemonSetPod(t, m)})
			}
		}
	}
	return out
}

func daemonSetPod(t *testing.T, m *render.Manifests) corev1.PodSpec {
	t.Helper()
	for _, o := range m.Objects() {
		if ds, ok := o.(*appsv1.DaemonSet); ok {
			return ds.Spec.Template.Spec
		}
	}
	t.Fatalf("no DaemonSet rendered:\n%s", m.YAML())
	return corev1.PodSpec{}
}

// checkBogusFlags: the same check fails for the extension chart and the installation chart with a flag added that no
// binary of ours has, naming the flag.
func checkBogusFlags(t *testing.T, ex *extractor, built *images.Built, overwrite string) {
	t.Helper()
	chart := copyChart(t, extensionChart)
	addArg(t, filepath.Join(chart, "templates", "deployment.yaml"), "        - --log-format={{ .Values.logFormat }}\n")
	out, stderr, err := helm(t, "template", releaseName, chart, "--namespace", releaseNS, "-f", built.WriteExtensionValues(t))
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	_, c := decode(t, out).deployment(t)
	wantRefused(t, "extension chart", ex.check(t, corev1.PodSpec{Containers: []corev1.Container{c}}))

	fsys := fstest.MapFS{}
	if err := fs.WalkDir(charts.Internal, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(charts.Internal, p)
		if p == path.Join(charts.InstallationChartPath, "templates", "daemonset.yaml") {
			data = bytes.Replace(data, []byte("            - --restart=systemd\n"), []byte("            - --restart=systemd\n            - "+bogusFlag+"\n"), 1)
		}
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	vector, err := imagevector.LoadWithOverwrite(built.Version, overwrite)
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.NewFromFS(fsys, vector)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Installation(render.InstallationValues{WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes"})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "installation chart", ex.check(t, daemonSetPod(t, m)))
}

func wantRefused(t *testing.T, chart string, errs []error) {
	t.Helper()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), bogusFlag) {
		t.Errorf("%s with %s: want exactly one refusal naming the flag, got %v", chart, bogusFlag, errs)
	}
}

// addArg adds bogusFlag after the line after in a chart template.
func addArg(t *testing.T, file, after string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(after)) {
		t.Fatalf("%s has no line %q", file, after)
	}
	indent := after[:len(after)-len(strings.TrimLeft(after, " "))]
	data = bytes.Replace(data, []byte(after), []byte(after+indent+"- "+bogusFlag+"\n"), 1)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyChart copies the chart directory dir into a directory of the test's.
func copyChart(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// extractor has the files of the built images that containers run, unpacked into a directory per image.
type extractor struct {
	built *images.Built
	dir   string
	// files are the unpacked files by image name and path in the image; env is each image's config environment.
	files map[string]map[string]string
	env   map[string][]string
}

func newExtractor(t *testing.T, built *images.Built) *extractor {
	return &extractor{built: built, dir: t.TempDir(), files: map[string]map[string]string{}, env: map[string][]string{}}
}

// check runs every command of spec's containers (init containers, containers, exec probes) with the image's binary
// in the check mode; each failure is one error naming the container and the command.
func (e *extractor) check(t *testing.T, spec corev1.PodSpec) []error {
	t.Helper()
	var errs []error
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		img, ok := e.image(c.Image)
		if !ok {
			errs = append(errs, fmt.Errorf("container %s runs %s, which is not an image built from this tree (%v)", c.Name, c.Image, e.built.Images))
			continue
		}
		commands := [][]string{append(append([]string(nil), c.Command...), c.Args...)}
		if proof := reproveCommand(commands[0]); proof != nil {
			commands = append(commands, proof) // gvisor-idle does not run it in its check mode
		}
		for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
			if p != nil && p.Exec != nil {
				commands = append(commands, p.Exec.Command)
			}
		}
		for _, argv := range commands {
			if err := e.run(t, img, argv, c.Env); err != nil {
				errs = append(errs, fmt.Errorf("container %s: %w", c.Name, err))
			}
		}
	}
	return errs
}

func (e *extractor) image(ref string) (images.Image, bool) {
	for _, img := range e.built.Images {
		if img.Ref == ref {
			return img, true
		}
	}
	return images.Image{}, false
}

// run runs argv with img's binary at argv[0] in the check mode, with the image's environment and the container's
// (a value from the downward API or a reference is a placeholder: the check needs it set, not right).
func (e *extractor) run(t *testing.T, img images.Image, argv []string, env []corev1.EnvVar) error {
	t.Helper()
	if len(argv) == 0 || !path.IsAbs(argv[0]) {
		return fmt.Errorf("command %q: want an absolute path into the image, so that the chart does not depend on its entrypoint", argv)
	}
	bin, err := e.file(t, img, argv[0])
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Env = append(append([]string(nil), e.env[img.Name]...), argcheck.Env+"=1")
	for _, v := range env {
		value := v.Value
		if v.ValueFrom != nil {
			value = "placeholder-" + strings.ToLower(v.Name)
		}
		cmd.Env = append(cmd.Env, v.Name+"="+value)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != argcheck.OK+"\n" {
		// The reason is the first line; the flag usage printed after it is noise here.
		reason, _, _ := strings.Cut(strings.TrimSpace(stderr.String()+"\n"+stdout.String()), "\n")
		return fmt.Errorf("%s of %s refuses %q (%v): %s", argv[0], img.Ref, argv[1:], err, reason)
	}
	return nil
}

// file returns the unpacked file at p of img, unpacking the image's executables the first time: p must be an
// executable regular file in the image.
func (e *extractor) file(t *testing.T, img images.Image, p string) (string, error) {
	t.Helper()
	if e.files[img.Name] == nil {
		e.unpack(t, img)
	}
	f, ok := e.files[img.Name][p]
	if !ok {
		return "", fmt.Errorf("%s has no executable file %s", img.Ref, p)
	}
	return f, nil
}

// unpack writes every executable regular file of img (the image as its archive has it, layers flattened) below the
// extractor's directory, and keeps the image's config environment.
func (e *extractor) unpack(t *testing.T, img images.Image) {
	t.Helper()
	v1img := img.Read(t)
	cf, err := v1img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	e.env[img.Name], e.files[img.Name] = cf.Config.Env, map[string]string{}
	rc := mutate.Extract(v1img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Mode&0o111 == 0 {
			continue
		}
		dst := filepath.Join(e.dir, img.Name, filepath.FromSlash(hdr.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
		e.files[img.Name]["/"+path.Clean(hdr.Name)] = dst
	}
}

// reproveCommand is the proof command of a `/gvisor-idle reprove ... -- PROOF...` command line (what follows the
// first --), nil for any other.
func reproveCommand(argv []string) []string {
	if len(argv) < 2 || argv[0] != "/gvisor-idle" || argv[1] != "reprove" {
		return nil
	}
	for i, a := range argv {
		if a == "--" {
			return argv[i+1:]
		}
	}
	return nil
}
