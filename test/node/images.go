// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The images every node has, imported from tarballs the harness builds: nothing is ever pulled, and the
// registry.invalid domain (RFC 6761) guarantees that an accidental pull fails instead of reaching a registry.
const (
	// PauseImage is the pod sandbox image (the CRI's pinned sandbox image on every node).
	PauseImage = "registry.invalid/gvisor-test/pause:1"
	// BusyboxImage is the container image: Debian's static busybox with a symlink per applet (sh, cat, dmesg, ...).
	BusyboxImage = "registry.invalid/gvisor-test/busybox:1"
)

//go:embed pause/main.go
var pauseSource []byte

// Images are docker-archive tarballs of PauseImage and BusyboxImage, ready for `ctr images import`.
type Images struct {
	Pause, Busybox string
}

// BuildImages builds the static pause program (CGO_ENABLED=0, cached by Go's build cache) and both tarballs
// into a temporary directory of t. Build them once per test and hand them to every node (Config.Images).
func BuildImages(t testing.TB, tools Tools) *Images {
	t.Helper()
	imgs, err := WriteImages(t.TempDir(), tools)
	if err != nil {
		t.Fatal(err)
	}
	return imgs
}

// WriteImages is BuildImages into dir, for callers without a testing.TB (the real-kubelet demo).
func WriteImages(dir string, tools Tools) (*Images, error) {
	pause, err := buildPause(dir)
	if err != nil {
		return nil, err
	}
	imgs := &Images{Pause: filepath.Join(dir, "pause.tar"), Busybox: filepath.Join(dir, "busybox.tar")}
	pauseLayer := []tarEntry{{name: "pause", mode: 0o755, data: pause}}
	if err := writeDockerArchive(imgs.Pause, PauseImage, []string{"/pause"}, pauseLayer); err != nil {
		return nil, fmt.Errorf("pause image: %w", err)
	}
	bbLayer, err := busyboxLayer(tools.Busybox)
	if err != nil {
		return nil, fmt.Errorf("busybox image: %w", err)
	}
	if err := writeDockerArchive(imgs.Busybox, BusyboxImage, []string{"/bin/sh"}, bbLayer); err != nil {
		return nil, fmt.Errorf("busybox image: %w", err)
	}
	return imgs, nil
}

// WriteBinaryImage writes a docker-archive of image ref holding only binary, at inImage, as its entrypoint: a
// static program of ours run as its own image (the installation image's gvisor-gpu-check, without the image build).
func WriteBinaryImage(path, ref, binary, inImage string) error {
	data, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	return writeDockerArchive(path, ref, []string{inImage}, []tarEntry{{name: strings.TrimPrefix(inImage, "/"), mode: 0o755, data: data}})
}

// buildPause compiles pause/main.go (embedded, standard library only, so GOPATH mode needs no module) for the
// machine's architecture.
func buildPause(dir string) ([]byte, error) {
	src := filepath.Join(dir, "pause.go")
	if err := os.WriteFile(src, pauseSource, 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "pause")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH, "GOFLAGS=", "GO111MODULE=off")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the pause program (go build, CGO_ENABLED=0): %w\n%s", err, msg)
	}
	return os.ReadFile(out)
}

// busyboxLayer is a root file system of the static busybox: /bin/busybox, a symlink per applet it lists, and the
// directories a container runtime mounts onto.
func busyboxLayer(busybox string) ([]tarEntry, error) {
	data, err := os.ReadFile(busybox)
	if err != nil {
		return nil, fmt.Errorf("reading Debian's static busybox (GVISOR_TEST_NODE busybox=): %w", err)
	}
	list, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --list: %w", busybox, err)
	}
	entries := []tarEntry{}
	for _, d := range []string{"bin", "dev", "etc", "proc", "root", "sys", "tmp"} {
		entries = append(entries, tarEntry{name: d, dir: true, mode: 0o755})
	}
	entries = append(entries, tarEntry{name: "bin/busybox", mode: 0o755, data: data})
	for _, applet := range strings.Fields(string(list)) {
		if applet != "busybox" && !strings.Contains(applet, "/") {
			entries = append(entries, tarEntry{name: "bin/" + applet, link: "busybox"})
		}
	}
	return entries, nil
}

// tarEntry is one file, directory (dir) or symlink (link) of a layer.
type tarEntry struct {
	name string
	mode int64
	data []byte
	link string
	dir  bool
}

// writeDockerArchive writes the `docker save` format containerd's importer reads: manifest.json naming the
// config and the (uncompressed) layer, the image config whose rootfs.diff_ids is the layer's sha256, the layer.
func writeDockerArchive(path, ref string, entrypoint []string, files []tarEntry) error {
	layer, err := tarOf(files)
	if err != nil {
		return err
	}
	diffID := sha256.Sum256(layer)
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       map[string]any{"Entrypoint": entrypoint, "Env": []string{"PATH=/bin"}},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(diffID[:])}},
	})
	if err != nil {
		return err
	}
	configSum := sha256.Sum256(config)
	configName := hex.EncodeToString(configSum[:]) + ".json"
	manifest, err := json.Marshal([]map[string]any{{"Config": configName, "RepoTags": []string{ref}, "Layers": []string{"layer.tar"}}})
	if err != nil {
		return err
	}
	archive, err := tarOf([]tarEntry{
		{name: "manifest.json", mode: 0o644, data: manifest},
		{name: configName, mode: 0o644, data: config},
		{name: "layer.tar", mode: 0o644, data: layer},
	})
	if err != nil {
		return err
	}
	return os.WriteFile(path, archive, 0o644)
}

func tarOf(entries []tarEntry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		switch {
		case e.dir:
			h.Typeflag, h.Name, h.Size = tar.TypeDir, e.name+"/", 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Mode, h.Size = tar.TypeSymlink, e.link, 0o777, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
