// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

func logrDiscard() logr.Logger { return logr.Discard() }

// nodeConfig is the node's Config from the tools hack/demo.sh found: the newest containerd release, Debian's
// busybox, CNI plugins and dbus-daemon.
func nodeConfig(o options) (kubenode.Config, error) {
	cfg := kubenode.Config{Assets: o.assets, DBusDaemon: o.dbusDaemon}
	for what, v := range map[string]string{"--kubebuilder-assets": o.assets, "--dbus-daemon": o.dbusDaemon, "--helm": o.helm, "--gvisor-dir": o.gvisorDir} {
		if v == "" {
			return cfg, fmt.Errorf("%s is %w: run the demo through `make demo`, which installs every tool", what, errMissing)
		}
	}
	releases, err := installertest.ParseContainerds(o.containerd)
	if err != nil {
		return cfg, err
	}
	cfg.Containerd = releases[len(releases)-1]
	if cfg.Containerd.Major != 2 || cfg.Containerd.Minor < 2 {
		return cfg, fmt.Errorf("--containerd lists no containerd 2.2 or later (the newest is %s): run hack/tools/containerd.sh", cfg.Containerd)
	}
	cfg.Tools, err = nodetest.ParseTools(o.nodeTools)
	return cfg, err
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
