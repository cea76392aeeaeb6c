// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/pelletier/go-toml/v2"
	cdispec "tags.cncf.io/container-device-interface/specs-go"
)

// CDISpecDir is the node's dynamic CDI spec directory, one of containerd's default cdi_spec_dirs (/etc/cdi and
// /var/run/cdi), where the GPU operator's toolkit and NVIDIA's DRA driver write their specs. /var/run is /run,
// the node's own tmpfs: the directory is bind-mounted from the host root, so a spec written there is the node's
// only, never the machine's.
const CDISpecDir = "/var/run/cdi"

// cdiSpecName is what a spec's file name may be: a file of the directory, as CDI's own writer names them.
var cdiSpecName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// WriteCDISpec writes spec as <name>.json into the node's CDISpecDir, where containerd's CDI registry finds it (it
// watches the directory; a refresh also runs at every container creation).
func (n *Node) WriteCDISpec(name string, spec *cdispec.Spec) error {
	if !cdiSpecName.MatchString(name) {
		return fmt.Errorf("CDI spec file name %q: want letters, digits, '.', '_' and '-' only", name)
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("CDI spec %s: %w", name, err)
	}
	path := filepath.Join(n.HostPath("/run/cdi"), name+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path) // a watcher never reads half a spec
}

// EnableCDI turns CDI on in the node's containerd 1.x (`enable_cdi = true` in the CRI plugin's table; like NVIDIA's
// toolkit, `nvidia-ctk runtime configure --cdi.enabled`, it decodes config.toml and writes it out again) and
// restarts containerd. From 2.0 CDI is on by default: EnableCDI changes nothing there.
func (n *Node) EnableCDI(ctx context.Context) error {
	if n.C.Major != 1 {
		return nil
	}
	path := filepath.Join(n.hostRoot, ConfigPath)
	config, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tree map[string]any
	if err := toml.Unmarshal(config, &tree); err != nil {
		return fmt.Errorf("%s: %w", ConfigPath, err)
	}
	if err := set(tree, setting{[]string{"plugins", "io.containerd.grpc.v1.cri", "enable_cdi"}, true}); err != nil {
		return fmt.Errorf("%s: %w", ConfigPath, err)
	}
	if config, err = toml.Marshal(tree); err != nil {
		return err
	}
	if err := os.WriteFile(path, config, 0o644); err != nil {
		return err
	}
	return n.Restart(ctx)
}
