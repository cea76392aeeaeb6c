// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// cliVersion is the build version the gvisor-render binary is stamped with and the controller's renderer loads.
const cliVersion = "v0.1.0-dev"

var (
	cliOnce sync.Once
	cliBin  string
	cliErr  error
)

// gvisorRender builds cmd/gvisor-render once per test binary, stamped like `make build` (CGO_ENABLED=0, the version
// by -ldflags -X), and returns its path.
func gvisorRender(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gvisor-render-")
		if err != nil {
			cliErr = err
			return
		}
		cliBin = filepath.Join(dir, "gvisor-render")
		const mod = "github.com/runtime-gvisor/gardener-extension-runtime-gvisor"
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X "+mod+"/pkg/version.Version="+cliVersion, "-o", cliBin, mod+"/cmd/gvisor-render")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("go build ./cmd/gvisor-render: %w\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliBin
}

// runCLI runs the built gvisor-render with args (no IMAGEVECTOR_OVERWRITE from the environment) and returns stdout.
func runCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(gvisorRender(t), args...)
	cmd.Env = append(os.Environ(), imagevector.OverrideEnv+"=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gvisor-render %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// splitObjects keys every document of gvisor-render's output as a ManagedResource Secret keys it
// (<kind>__<namespace>__<name>.yaml), with the document's bytes as they were printed.
func splitObjects(t *testing.T, stream []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, doc := range bytes.Split(stream, []byte("---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var obj struct {
			metav1.TypeMeta   `json:",inline"`
			metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("gvisor-render printed a document that is not an object: %v\n%s", err, doc)
		}
		key := fmt.Sprintf("%s__%s__%s.yaml", strings.ToLower(obj.Kind), obj.Namespace, strings.ReplaceAll(obj.Name, ":", "_"))
		if _, dup := out[key]; dup {
			t.Fatalf("gvisor-render printed %s twice", key)
		}
		out[key] = doc
	}
	return out
}

// readContainerRuntimes decodes the ContainerRuntimes of a manifest file strictly, as gvisor-render does.
func readContainerRuntimes(t *testing.T, file string) []*extensionsv1alpha1.ContainerRuntime {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := extensionsv1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var crs []*extensionsv1alpha1.ContainerRuntime
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return crs
		}
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		crs = append(crs, obj.(*extensionsv1alpha1.ContainerRuntime))
	}
}
