// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// run is main without os.Exit, so tests drive it in-process with any version.
func run(args []string, version string, stdout, stderr io.Writer) int {
	inv, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	if inv.showVersion {
		fmt.Fprintln(stdout, version)
		return 0
	}
	out, crs, err := renderFile(inv, version)
	if err != nil {
		fmt.Fprintf(stderr, "gvisor-render: %v\n", err)
		if render.IsConfigurationError(err) {
			fmt.Fprintln(stderr, "gvisor-render: fix the fields named above in", inv.file)
		}
		return 1
	}
	if out.ReadinessGateOff != "" {
		fmt.Fprintf(stderr, "gvisor-render: readiness gate off: %s\n", out.ReadinessGateOff)
	}
	manifests := out.Manifests().YAML()
	if inv.seed {
		// Rendered the shoot's first: the controller deploys the monitoring objects only for ContainerRuntimes it
		// can render, so bad input fails here as it fails there.
		if manifests, err = seedYAML(crs, inv.settings.DeliveryMode); err != nil {
			fmt.Fprintf(stderr, "gvisor-render: %s: %v\n", inv.file, err)
			return 1
		}
	}
	if _, err := stdout.Write(manifests); err != nil {
		fmt.Fprintf(stderr, "gvisor-render: writing output: %v\n", err)
		return 1
	}
	return 0
}

// renderFile renders everything for the ContainerRuntimes in inv.file, with images for the given build version,
// and returns them too.
func renderFile(inv *invocation, version string) (*render.ShootObjects, []*extensionsv1alpha1.ContainerRuntime, error) {
	data, err := readInput(inv.file)
	if err != nil {
		return nil, nil, err
	}
	crs, err := decodeContainerRuntimes(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", inv.file, err)
	}
	r, err := render.Load(version, inv.overwrite)
	if err != nil {
		return nil, nil, err
	}
	in := inv.shoot
	in.ContainerRuntimes = crs
	out, err := r.Shoot(inv.settings, in)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", inv.file, err)
	}
	return out, crs, nil
}

func readInput(file string) ([]byte, error) {
	if file == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: pass a ContainerRuntime manifest with -f, for example example/containerruntime.yaml", file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return data, nil
}
