// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command generate-controller-registration writes example/controller-registration.yaml: a Gardener
// ControllerDeployment that carries the packaged extension chart and a ControllerRegistration for
// ContainerRuntime type gvisor. `make generate` runs it with the repository's VERSION:
//
//	go run ./hack/generate-controller-registration -version v0.1.0-dev \
//	  -chart charts/gardener-extension-runtime-gvisor -out example/controller-registration.yaml
//
// The output is byte-identical for the same chart and version (the chart archive has fixed mtimes), so a
// test can regenerate it and fail when the committed file is stale.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	var (
		version  = flag.String("version", "", "version of this build (the VERSION file); a release vX.Y.Z tags the image with it, anything else uses the chart's appVersion")
		chartDir = flag.String("chart", "charts/gardener-extension-runtime-gvisor", "directory of the extension chart")
		out      = flag.String("out", "example/controller-registration.yaml", "file to write")
	)
	flag.Parse()
	if err := run(*version, *chartDir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "generate-controller-registration:", err)
		os.Exit(1)
	}
}

func run(version, chartDir, out string) error {
	if version == "" {
		return errors.New("-version is required (e.g. -version \"$(cat VERSION)\", as `make generate` does)")
	}
	data, err := Generate(version, chartDir)
	if err != nil {
		return err
	}
	return writeAtomically(out, data)
}

// writeAtomically replaces path with data through a temporary file in the same directory, so an
// interrupted run never leaves a half-written registration behind.
func writeAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}
