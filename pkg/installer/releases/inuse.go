// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// TaskDir is the node path where containerd keeps the bundles of running tasks, one per namespace and task
// (io.containerd.runtime.v2.task/<namespace>/<id>).
const TaskDir = "/run/containerd/io.containerd.runtime.v2.task"

// shimState is the part of the runsc shim's state.json (in every bundle it created) that names runsc.
type shimState struct {
	Options struct {
		BinaryName string `json:"binaryName"`
	} `json:"options"`
}

// InUse returns, per release id under binDir (a node path), how many running sandboxes' and containers' bundles
// (taskDir, a host path) name that release's runsc: the releases that must stay on the node. A bundle that
// cannot be read is skipped (it is being created or removed); listing the task directory must succeed.
func InUse(taskDir, binDir string) (map[string]int, error) {
	bundles, err := filepath.Glob(filepath.Join(taskDir, "*", "*", "state.json"))
	if err != nil {
		return nil, fmt.Errorf("listing containerd's task bundles under %s: %w", TaskDir, err)
	}
	prefix := path.Join(binDir, nodecontract.ReleasesDir) + "/"
	used := map[string]int{}
	for _, b := range bundles {
		data, err := os.ReadFile(b)
		if err != nil {
			continue
		}
		var st shimState
		if json.Unmarshal(data, &st) != nil {
			continue
		}
		rest, ok := strings.CutPrefix(path.Clean(st.Options.BinaryName), prefix)
		if !ok {
			continue
		}
		if id, _, _ := strings.Cut(rest, "/"); id != "" {
			used[id]++
		}
	}
	return used, nil
}
