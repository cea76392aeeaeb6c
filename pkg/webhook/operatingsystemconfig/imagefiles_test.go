// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"path"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/images"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// TestImageFilesAreTheInstallationImages: every file the OSC takes from the installation image (imageRef) is where
// the image's one definition puts it, under the name the DaemonSet's installer gives it on the node. (The paths are
// spelled out in imageFiles: importing pkg/images would put its registry client into the controller binary.)
func TestImageFilesAreTheInstallationImages(t *testing.T) {
	d, ok := images.Definition(imagevector.ImageNameInstallation)
	if !ok {
		t.Fatal("pkg/images has no installation image")
	}
	inImage := map[string]string{}
	for _, b := range d.Binaries {
		inImage[b.Path] = path.Base(b.Path)
	}
	for _, n := range []string{nodecontract.Runsc, nodecontract.Shim} {
		inImage[path.Join(d.GVisorRelease, n)] = n
	}
	// With sandbox metrics: the metric server, under the name the DaemonSet's container runs it by.
	if name, ok := inImage[metricServerInImage]; !ok || name != MetricServerBinary {
		t.Errorf("the OSC installs %s from %s, which the installation image does not carry under that name (it has %v)", MetricServerBinary, metricServerInImage, inImage)
	}
	for _, f := range imageFiles {
		if name, ok := inImage[f[1]]; !ok || name != f[0] {
			t.Errorf("the OSC installs %s from %s, which the installation image does not carry under that name (it has %v)", f[0], f[1], inImage)
		}
	}
}
