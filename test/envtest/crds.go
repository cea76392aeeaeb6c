// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gardenerModule is the module whose example/seed-crds we load; its version comes from our go.mod, so the CRDs
// always match the Gardener API types the controller is compiled against.
const gardenerModule = "github.com/gardener/gardener"

// GardenerCRDFiles are the CRDs a seed has for our controller, as Gardener ships them in example/seed-crds.
var GardenerCRDFiles = []string{
	"10-crd-extensions.gardener.cloud_clusters.yaml",
	"10-crd-extensions.gardener.cloud_containerruntimes.yaml",
	// The extension's OperatingSystemConfig webhook registers for this type (its REST mapping must exist).
	"10-crd-extensions.gardener.cloud_operatingsystemconfigs.yaml",
	"10-crd-resources.gardener.cloud_managedresources.yaml",
	// The shoot's monitoring objects (--shoot-monitoring, the chart's default): prometheus-operator's CRDs as
	// Gardener ships them (generated from github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring at
	// the version our go.mod pins through Gardener), so the API server validates them against the real schema.
	"10-crd-monitoring.coreos.com_prometheusrules.yaml",
	"10-crd-monitoring.coreos.com_scrapeconfigs.yaml",
}

// GardenerCRDDirEnv overrides where the CRDs are read from (a folder holding GardenerCRDFiles), for running
// outside the module (for example a demo binary copied elsewhere).
const GardenerCRDDirEnv = "GARDENER_SEED_CRDS_DIR"

// GardenerCRDPaths returns the paths of GardenerCRDFiles: from $GARDENER_SEED_CRDS_DIR if set, otherwise from
// the Gardener module directory that `go list -m` reports for this module (the module cache).
func GardenerCRDPaths() ([]string, error) {
	dir := os.Getenv(GardenerCRDDirEnv)
	if dir == "" {
		moduleDir, err := goListModuleDir(gardenerModule)
		if err != nil {
			return nil, fmt.Errorf("locating Gardener's CRDs (set %s to a folder with %v to skip the lookup): %w",
				GardenerCRDDirEnv, GardenerCRDFiles, err)
		}
		dir = filepath.Join(moduleDir, "example", "seed-crds")
	}
	paths := make([]string, 0, len(GardenerCRDFiles))
	for _, f := range GardenerCRDFiles {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("gardener CRD %s: %w (run `go mod download %s` or set %s)", f, err, gardenerModule, GardenerCRDDirEnv)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func goListModuleDir(module string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go list -m %s: %w: %s", module, err, strings.TrimSpace(stderr.String()))
	}
	dir := strings.TrimSpace(stdout.String())
	if dir == "" {
		return "", fmt.Errorf("go list -m %s: module not downloaded (run `go mod download %s`)", module, module)
	}
	return dir, nil
}
