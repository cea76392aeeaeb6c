// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// anchorFix is the fix of every anchor refusal.
const anchorFix = "deploy the installation image this extension version was released with; an operator who overrides the " +
	"installation image (imageVectorOverwrite) sets its sums in the same file under gvisorReleaseSums (imagevector/README.md)"

// CheckAnchor compares the verified release with the controller's sums for the node's architecture, read from
// dir/SHA512SUMS.<goarch> (--release-sums). The image's own SHA512SUMS travels with the image it verifies, so it
// catches corruption, not whoever controls the image; these sums come from the controller. Every release file must
// be listed there with the same SHA-512, and every listed file must be in the release. A refusal names the file;
// Install calls this before it touches the host.
func CheckAnchor(rel *Release, dir, goarch string) error {
	anchorPath := filepath.Join(dir, nodecontract.AnchorFile(goarch))
	data, err := os.ReadFile(anchorPath)
	if err != nil {
		return refusal.Wrap(anchorPath, "cannot read the controller's release sums for linux/"+goarch,
			"the runsc ConfigMap must carry "+nodecontract.AnchorFile(goarch)+": the controller renders one per architecture of the pool; "+anchorFix, err)
	}
	want, err := parseSums(anchorPath, data)
	if err != nil {
		return err
	}
	for _, f := range rel.Files {
		sum, listed := want[f.Name]
		if !listed {
			return refusal.New(f.Path, "is not part of the release the controller expects ("+anchorPath+" does not list it)", anchorFix)
		}
		if sum != f.Sum {
			return refusal.New(f.Path, fmt.Sprintf("SHA-512 %s… does not match the controller's %s… (%s): the installation image carries another gVisor build",
				f.Sum[:16], sum[:16], anchorPath), anchorFix)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for n := range want {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		return refusal.New(filepath.Join(rel.Dir, missing[0]), "is missing from the release, but the controller's "+anchorPath+" lists it", anchorFix)
	}
	return nil
}
