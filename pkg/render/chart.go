// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// parsedChart is a chart loaded once, with its values schema compiled once.
type parsedChart struct {
	chart  *chart.Chart
	schema *jsonschema.Schema
}

// loadChart reads the chart at dir of fsys and compiles its values.schema.json.
// Compiling the schema here, not per render as helm's chartutil.ValidateAgainstSchema does, is what makes
// rendering cheap; the validation itself is the same library and semantics Helm uses.
func loadChart(fsys fs.FS, dir string) (*parsedChart, error) {
	var files []*loader.BufferedFile
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: strings.TrimPrefix(p, dir+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading chart %s: %w", dir, err)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	if ch.Schema == nil {
		return nil, fmt.Errorf("chart %s has no values.schema.json: every chart of ours must have one", dir)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ch.Schema))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path.Join(dir, "values.schema.json"), err)
	}
	c := jsonschema.NewCompiler()
	// No loaders: our schemas are self-contained, and rendering must never reach out to the network.
	const url = "file:///values.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("adding %s: %w", path.Join(dir, "values.schema.json"), err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", path.Join(dir, "values.schema.json"), err)
	}
	return &parsedChart{chart: ch, schema: schema}, nil
}
