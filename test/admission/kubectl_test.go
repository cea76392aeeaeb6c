// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// guideRefusal finds, in docs/operator-guide.md, the example of a refused Shoot: the kubectl command line and what
// kubectl prints, so that the test runs what the guide shows.
var guideRefusal = regexp.MustCompile("(?s)```text\n\\$ (kubectl [^\n]*)\n(The Shoot [^`]*)```")

// kubectl is the control plane release's kubectl (hack/tools/control-plane.sh builds it beside kube-apiserver).
func kubectl(t *testing.T) string {
	t.Helper()
	path := filepath.Join(realcomponents.KubebuilderAssets(t), "kubectl")
	if st, err := os.Stat(path); err != nil || st.Mode().Perm()&0o111 == 0 {
		msg := path + " is not an executable file: run `make tool-control-plane` (or `make test`), which builds kubectl"
		if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// checkGuideRefusal applies, with the real kubectl, the Shoot of the operator guide's example (Shoot "demo" with
// the misspelt flag net-raww) and compares what kubectl prints with the guide, byte for byte.
func checkGuideRefusal(t *testing.T, env *envtest.Environment) {
	t.Helper()
	bin := kubectl(t)
	doc, err := os.ReadFile("../../docs/operator-guide.md")
	if err != nil {
		t.Fatal(err)
	}
	m := guideRefusal.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/operator-guide.md: no refused-Shoot example (```text, $ kubectl ..., The Shoot ...)")
	}
	args, want := strings.Fields(string(m[1]))[1:], string(m[2])

	user, err := env.AddUser(envtest.User{Name: "guide", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	manifest, err := yaml.Marshal(gvisorShoot(t, "demo", `{configFlags: {net-raww: "true"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"kubeconfig": kubeconfig, "shoot.yaml": manifest} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", "kubeconfig", "--namespace", projectNS}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("kubectl %s: want it to fail, got %v:\n%s", strings.Join(args, " "), err, out)
	}
	if string(out) != want {
		t.Errorf("kubectl %s prints\n%s\nthe operator guide shows\n%s", strings.Join(args, " "), out, want)
	}
}
