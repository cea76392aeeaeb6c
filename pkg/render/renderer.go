// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// Renderer renders the embedded charts. It is immutable after New and safe for concurrent use.
type Renderer struct {
	runtimeClass *parsedChart
	installation *parsedChart
	images       imagevectorutils.ImageVector
	// sums is the checksum anchor of the gVisor release the install mode passes to the installer (releaseSums).
	sums imagevector.ReleaseSums
}

// New parses the embedded charts and compiles their schemas once. images is the image vector to take the
// installation image from, usually imagevector.Load(version.Version) (which honours IMAGEVECTOR_OVERWRITE).
func New(images imagevectorutils.ImageVector) (*Renderer, error) {
	return NewFromFS(charts.Internal, images)
}

// Load returns the renderer of a binary built as version: images.yaml with the version rule
// (imagevector.ForVersion), the operator's image vector overwrite file on top (empty: none), and the gVisor release
// sums that come with it (its gvisorReleaseSums, else the embedded ones). The controller passes
// $IMAGEVECTOR_OVERWRITE, gvisor-render its --image-vector-overwrite: both render with the same images and sums.
func Load(version, overwriteFile string) (*Renderer, error) {
	images, err := imagevector.LoadWithOverwrite(version, overwriteFile)
	if err != nil {
		return nil, fmt.Errorf("resolving images: %w", err)
	}
	r, err := New(images)
	if err != nil {
		return nil, fmt.Errorf("loading charts: %w", err)
	}
	sums, err := imagevector.LoadReleaseSums(overwriteFile)
	if err != nil {
		return nil, fmt.Errorf("resolving the gVisor release sums: %w", err)
	}
	return r.WithReleaseSums(sums)
}

// NewFromFS is New with the charts read from fsys (laid out like package charts' Internal), for tests that
// render modified charts.
func NewFromFS(fsys fs.FS, images imagevectorutils.ImageVector) (*Renderer, error) {
	if _, err := images.FindImage(imagevector.ImageNameInstallation); err != nil {
		return nil, fmt.Errorf("image vector has no usable %q image: %w", imagevector.ImageNameInstallation, err)
	}
	rc, err := loadChart(fsys, charts.RuntimeClassChartPath)
	if err != nil {
		return nil, err
	}
	inst, err := loadChart(fsys, charts.InstallationChartPath)
	if err != nil {
		return nil, err
	}
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		return nil, err
	}
	return &Renderer{runtimeClass: rc, installation: inst, images: images, sums: sums}, nil
}

// WithReleaseSums returns a copy of r that passes sums to the installer instead of the embedded ones: those of the
// operator's image vector overwrite (imagevector.LoadReleaseSums), which come with an overwritten installation image.
func (r *Renderer) WithReleaseSums(sums imagevector.ReleaseSums) (*Renderer, error) {
	if err := sums.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", imagevector.SumsKey, err)
	}
	c := *r
	c.sums = sums
	return &c, nil
}

// releaseSums returns the gVisor release's checksum anchor: arch -> SHA512SUMS text, for arch only, or for every
// architecture when arch is empty. An architecture without sums is refused: no installation image is built for it.
func (r *Renderer) releaseSums(arch string) (map[string]string, error) {
	archs := r.sums.Archs()
	if arch != "" {
		archs = []string{arch}
	}
	out := map[string]string{}
	for _, a := range archs {
		text, ok := r.sums.SHA512SUMS(a)
		if !ok {
			return nil, fmt.Errorf("the worker pool's machine architecture %q has no gVisor release sums (%s has %s): build the installation "+
				"image for it, or set its sums under %s in the image vector overwrite", a, imagevector.SumsFile, strings.Join(r.sums.Archs(), ", "), imagevector.SumsKey)
		}
		out[a] = text
	}
	return out, nil
}

// RuntimeClass renders the RuntimeClass chart (once per shoot).
func (r *Renderer) RuntimeClass(v RuntimeClassValues) (*Manifests, error) {
	if err := configurationError(validateRuntimeClassValues(v)); err != nil {
		return nil, err
	}
	values, err := toMap(v)
	if err != nil {
		return nil, err
	}
	if v.Overhead != nil && len(v.Overhead.PodFixed) > 0 {
		podFixed := map[string]any{}
		for name, q := range v.Overhead.PodFixed {
			podFixed[string(name)] = q.String()
		}
		values["overhead"] = podFixed
	}
	return r.render(r.runtimeClass, values)
}

// Installation renders one worker pool's installation chart, in install or uninstall mode (v.Mode), from typed
// values given directly (tests, tools): they are checked first, naming the InstallationValues fields. Shoot renders
// a shoot's pools from its ContainerRuntimes, with the extension's policy; both end in renderInstallation.
func (r *Renderer) Installation(v InstallationValues) (*Manifests, error) {
	if err := configurationError(validateInstallationValues(v)); err != nil {
		return nil, err
	}
	m, _, err := r.renderInstallation(v)
	return m, err
}

// renderInstallation renders valid values (checked by validateInstallationValues, or read by readContainerRuntime)
// and returns, in install mode, what the chart carries to the pool's nodes (nil in uninstall mode, which writes no
// runsc config).
func (r *Renderer) renderInstallation(v InstallationValues) (*Manifests, *NodeConfig, error) {
	var node *NodeConfig
	var err error
	if v.Mode == ModeUninstall {
		v.Image, err = r.installationImage(v)
	} else if node, err = r.nodeConfig(v); err == nil {
		v.Image = node.Image
	}
	if err != nil {
		return nil, nil, err
	}
	values, err := toMap(installationChart(v, node))
	if err != nil {
		return nil, nil, err
	}
	m, err := r.render(r.installation, values)
	if err != nil {
		return nil, nil, err
	}
	return m, node, nil
}

// render validates values against the chart's schema, renders it with Helm's engine and decodes the output.
func (r *Renderer) render(pc *parsedChart, values map[string]any) (*Manifests, error) {
	name := pc.chart.Name()
	// Coalesce copies the values and fills in the chart's defaults (values.yaml) without touching the chart.
	vals, err := chartutil.CoalesceValues(pc.chart, values)
	if err != nil {
		return nil, fmt.Errorf("chart %s: merging values with defaults: %w", name, err)
	}
	if err := pc.schema.Validate(vals.AsMap()); err != nil {
		return nil, fmt.Errorf("chart %s: values don't meet values.schema.json: %s", name,
			strings.TrimPrefix(err.Error(), "jsonschema validation failed with 'file:///values.schema.json#'\n"))
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(pc.chart, vals, chartutil.ReleaseOptions{
		Name: name, Namespace: "kube-system", IsInstall: true, Revision: 1,
	}, nil, true /* validated above against the precompiled schema */)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", name, err)
	}
	// Strict: a template that reads a value the chart does not have is an error, not an empty string.
	files, err := engine.Engine{Strict: true}.Render(pc.chart, top)
	if err != nil {
		return nil, fmt.Errorf("rendering chart %s: %w", name, err)
	}
	return newManifests(name, files)
}

// toMap turns typed values into the generic map Helm wants, through their JSON form (omitempty fields are
// left out, so Helm fills in the chart's defaults for them).
func toMap(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding values: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decoding values: %w", err)
	}
	return m, nil
}
