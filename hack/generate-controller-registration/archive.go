// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// archiveModTime is the mtime of every file in the archive. helm stamps time.Now(), which would make
// every `make generate` produce a different rawChart; a constant keeps the output reproducible.
var archiveModTime = time.Unix(0, 0).UTC()

// packageChart loads the chart in dir and returns it packaged as `helm package` would, but with fixed mtimes.
func packageChart(dir string) (*chart.Chart, []byte, error) {
	c, err := loader.LoadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("loading chart %s: %w", dir, err)
	}
	if len(c.Schema) == 0 {
		return nil, nil, fmt.Errorf("chart %s has no values.schema.json (it must link to the root values.schema.json)", dir)
	}
	tmp, err := os.MkdirTemp("", "chart-package-")
	if err != nil {
		return nil, nil, fmt.Errorf("packaging chart %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)
	// chartutil.Save is helm's own packager: it decides the layout and what goes into the archive.
	file, err := chartutil.Save(c, tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("packaging chart %s: %w", dir, err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("packaging chart %s: %w", dir, err)
	}
	normalized, err := normalizeArchive(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("packaging chart %s: %w", dir, err)
	}
	return c, normalized, nil
}

// normalizeArchive rewrites a helm chart archive with the same entries in the same order, the same gzip
// header (helm's comment and extra field), and archiveModTime as the only timestamp.
func normalizeArchive(raw []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reading gzip: %w", err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Header = gzip.Header{Comment: zr.Comment, Extra: zr.Extra, OS: zr.OS}
	tr := tar.NewReader(zr)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("unexpected tar entry %s of type %c", h.Name, h.Typeflag)
		}
		nh := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     h.Name,
			Mode:     h.Mode,
			Size:     h.Size,
			ModTime:  archiveModTime,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(nh); err != nil {
			return nil, fmt.Errorf("writing tar entry %s: %w", h.Name, err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return nil, fmt.Errorf("writing tar entry %s: %w", h.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("writing tar: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("writing gzip: %w", err)
	}
	return out.Bytes(), nil
}
