// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/ociregistry"
)

// installationRepository is the installation image's repository in the test registry (the image vector's name).
const installationRepository = "runtime-gvisor/runtime-gvisor-installation"

// startRegistry serves a real OCI distribution registry (test/ociregistry) on a loopback port of the machine for
// the rest of the test and returns its host:port.
func startRegistry(t testing.TB) string {
	t.Helper()
	r, err := ociregistry.Start(net.Listen, (&net.Dialer{}).DialContext)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Errorf("test registry: %v", err)
		}
	})
	return r.Host()
}

// imageFile is one file of the pushed image.
type imageFile struct {
	path string // in the image, without the leading slash
	mode int64
	data []byte
}

// pushInstallationImageFiles pushes an image laid out as pkg/images' runtime-gvisor-installation image
// (/gvisor-installer, /opt/gvisor/{runsc,containerd-shim-runsc-v1}), one gzip layer, linux/GOARCH, to the test
// registry over plain http, and returns its reference (repository:tag).
func pushInstallationImageFiles(t testing.TB, host, tag string, files []imageFile) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := filepath.Dir(f.path); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.path, Typeflag: tar.TypeReg, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	layerData := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerData)), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config = v1.Config{Entrypoint: []string{"/gvisor-installer"}}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		t.Fatal(err)
	}
	ref := host + "/" + installationRepository + ":" + tag
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img); err != nil {
		t.Fatalf("pushing %s to the test registry: %v", ref, err)
	}
	return ref
}

// writeHostsToml points containerd's registry host config at the test registry over plain http, the file
// node-agent writes from criConfig.containerd.registries (its containerd-hosts.toml template).
func writeHostsToml(t testing.TB, root, host string) {
	t.Helper()
	dir := filepath.Join(root, "etc/containerd/certs.d", host)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	content := fmt.Sprintf("# managed by gardener-node-agent (test registry)\nserver = %q\n\n[host.%q]\n  capabilities = [\"pull\",\"resolve\"]\n", "http://"+host, "http://"+host)
	if err := os.WriteFile(filepath.Join(dir, "hosts.toml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildInstaller builds cmd/gvisor-installer static (CGO_ENABLED=0, as pkg/images) into dir; without the images'
// -trimpath, so that it shares Go's build cache with the test build.
func buildInstaller(t testing.TB, dir string) []byte {
	t.Helper()
	out := filepath.Join(dir, "gvisor-installer")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "../../cmd/gvisor-installer")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building gvisor-installer: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
