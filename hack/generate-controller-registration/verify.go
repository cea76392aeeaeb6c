// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

var imageLine = regexp.MustCompile(`(?m)^\s*(?:-\s+)?image:\s*["']?([^"'\s]+)`)

// verifyRenders renders the packaged chart the way gardenlet does (values plus an injected gardener
// block, schema validation on) and checks that every image reference is one a registry has.
func verifyRenders(archive []byte, values map[string]any) error {
	c, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return fmt.Errorf("loading the packaged chart: %w", err)
	}
	vals := map[string]any{
		"gardener": map[string]any{"version": "v1.149.3", "seed": map[string]any{"name": "example"}},
	}
	for k, v := range values {
		vals[k] = v
	}
	opts := chartutil.ReleaseOptions{Name: registrationName, Namespace: "extension-" + registrationName, IsInstall: true}
	renderValues, err := chartutil.ToRenderValuesWithSchemaValidation(c, vals, opts, chartutil.DefaultCapabilities, false)
	if err != nil {
		return fmt.Errorf("validating values: %w", err)
	}
	files, err := engine.Render(c, renderValues)
	if err != nil {
		return fmt.Errorf("rendering: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	images := 0
	for _, name := range names {
		for _, m := range imageLine.FindAllStringSubmatch(files[name], -1) {
			images++
			if err := imagevector.CheckReference(m[1]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	if images == 0 {
		return fmt.Errorf("rendered no image reference at all")
	}
	return nil
}
