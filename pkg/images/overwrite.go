// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"sigs.k8s.io/yaml"
)

// overwriteEntry is an image of Gardener's image vector format (imagevector/README.md).
type overwriteEntry struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
}

// ImageVectorOverwrite returns an image vector overwrite (Gardener's images_overwrite.yaml, the extension chart's
// imageVectorOverwrite value) that points each image of Definitions at its reference in refs (by name), as
// repository and tag, in the definitions' order. The controller then renders the installation DaemonSet with the
// installation image's reference; the Deployments' images are chart values of their own.
func ImageVectorOverwrite(refs map[string]name.Tag) ([]byte, error) {
	var entries []overwriteEntry
	for _, d := range Definitions() {
		ref, ok := refs[d.Name]
		if !ok {
			return nil, fmt.Errorf("no reference for image %s", d.Name)
		}
		entries = append(entries, overwriteEntry{Name: d.Name, Repository: ref.Context().Name(), Tag: ref.TagStr()})
	}
	out, err := yaml.Marshal(map[string][]overwriteEntry{"images": entries})
	if err != nil {
		return nil, fmt.Errorf("writing the image vector overwrite: %w", err)
	}
	return out, nil
}
