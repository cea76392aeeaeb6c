// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootprometheus

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const (
	// apiServerPort is the port the API server serves on at Env.APIServerIP, as a shoot's kube-apiserver does.
	apiServerPort = 443
	// inClusterSecrets is where a pod's ServiceAccount token, CA and namespace lie (client-go's in-cluster
	// configuration reads them there and nowhere else).
	inClusterSecrets = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// privateMounts returns a command that runs argv in env's network with a mount namespace of its own, so that the
// machine's files stay untouched: /etc/hosts is hostsFile, and with runDirs a fresh tmpfs lies over /run (/var/run)
// with each source directory bound at its target path there, where a pod has its mounted secrets. The paths reach
// the shell as positional parameters, never as script text.
func privateMounts(ctx context.Context, env Env, hostsFile string, runDirs map[string]string, environ []string, argv ...string) *exec.Cmd {
	script := `mount -n --bind "$1" /etc/hosts`
	params := []string{hostsFile}
	if len(runDirs) > 0 {
		script += " && mount -n -t tmpfs tmpfs /run"
		for _, target := range slices.Sorted(maps.Keys(runDirs)) {
			t, s := len(params)+1, len(params)+2
			script += fmt.Sprintf(` && mkdir -p "${%d}" && mount -n --bind "${%d}" "${%d}"`, t, s, t)
			params = append(params, target, runDirs[target])
		}
	}
	script += fmt.Sprintf(` && shift %d && exec "$@"`, len(params))
	shArgs := append([]string{"unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh"}, params...)
	cmd := env.Command(context.WithoutCancel(ctx), append(shArgs, argv...)...)
	cmd.Env = append(os.Environ(), environ...)
	return cmd
}

// writeHosts writes a hosts file with localhost and the names' addresses, and returns its path.
func writeHosts(path string, names map[string]string) (string, error) {
	lines := []string{"127.0.0.1 localhost"}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		lines = append(lines, names[name]+" "+name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// writeFiles writes files (name to content) into dir, readable by their owner only.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
