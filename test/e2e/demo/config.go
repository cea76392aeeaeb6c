// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

func logrDiscard() logr.Logger { return logr.Discard() }

// nodeConfig is the node's Config from the tools hack/demo.sh found: the newest containerd release, Debian's
// busybox, CNI plugins and dbus-daemon.
func nodeConfig(o options) (kubenode.Config, error) {
	cfg := kubenode.Config{Assets: o.assets, DBusDaemon: o.dbusDaemon}
	for _, entry := range strings.Fields(o.containerd) {
		ver, dir, _ := strings.Cut(entry, "=")
		parts := strings.Split(ver, ".")
		if len(parts) < 2 {
			return cfg, fmt.Errorf("--containerd entry %q is not version=dir", entry)
		}
		major, _ := strconv.Atoi(parts[0])
		minor, _ := strconv.Atoi(parts[1])
		if c := (installertest.Containerd{Version: ver, Dir: dir, Major: major, Minor: minor}); major == 2 && (cfg.Containerd.Dir == "" || minor > cfg.Containerd.Minor) {
			cfg.Containerd = c
		}
	}
	for _, entry := range strings.Fields(o.nodeTools) {
		switch key, val, _ := strings.Cut(entry, "="); key {
		case "busybox":
			cfg.Tools.Busybox = val
		case "cni":
			cfg.Tools.CNIDir = val
		}
	}
	for what, v := range map[string]string{"--kubebuilder-assets": o.assets, "--containerd 2.x": cfg.Containerd.Dir, "--node-tools busybox": cfg.Tools.Busybox,
		"--node-tools cni": cfg.Tools.CNIDir, "--dbus-daemon": o.dbusDaemon, "--helm": o.helm, "--gvisor-dir": o.gvisorDir} {
		if v == "" {
			return cfg, fmt.Errorf("%s is %w: run the demo through `make demo`, which installs every tool", what, errMissing)
		}
	}
	return cfg, nil
}

// buildImages builds this tree's images as a release does (pkg/images) on the synthetic base, names them
// registry.invalid/runtime-gvisor/<image>:demo and returns their archives and the extension chart's values that
// point at them (the controller's image and the top-level imageVectorOverwrite).
func buildImages(ctx context.Context, gvisorDir, dir string) ([]string, map[string]any, error) {
	version, err := os.ReadFile("VERSION")
	if err != nil {
		return nil, nil, err
	}
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		return nil, nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, nil, err
	}
	if d := os.Getenv("TOOLS_DIR"); d != "" {
		cache = d
	} else {
		cache = filepath.Join(cache, "runtime-gvisor")
	}
	b := images.Builder{SourceDir: ".", BinDir: filepath.Join(cache, "demo-images"), Version: strings.TrimSpace(string(version)), Base: images.Synthetic,
		GVisorRelease: func(string) (string, error) { return gvisorDir, nil }, ReleaseSums: &sums}
	refs := map[string]name.Tag{}
	for _, d := range images.Definitions() {
		if refs[d.Name], err = images.Reference(d.Name, b.Version, "registry.invalid/runtime-gvisor", "demo"); err != nil {
			return nil, nil, err
		}
	}
	archives, err := images.WriteArchives(ctx, b, runtime.GOARCH, images.Definitions(), refs, dir)
	if err != nil {
		return nil, nil, err
	}
	overwrite, err := images.ImageVectorOverwrite(refs)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, a := range archives {
		files = append(files, a.File)
	}
	ctl := refs[imagevector.ImageNameExtension]
	return files, map[string]any{
		"image":                map[string]any{"repository": ctl.Context().Name(), "tag": ctl.TagStr(), "pullPolicy": "IfNotPresent"},
		"imageVectorOverwrite": string(overwrite),
	}, nil
}
