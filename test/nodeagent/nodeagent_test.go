// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	containerdclient "github.com/containerd/containerd/v2/client"
	extensionsv1alpha1helper "github.com/gardener/gardener/pkg/api/extensions/v1alpha1/helper"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/nodeagent/controller/operatingsystemconfig"
	"github.com/go-logr/logr/testr"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/afero"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// configFile is containerd's config.toml, the file node-agent owns on Gardener nodes.
const configFile = "/etc/containerd/config.toml"

// reconcileContainerd runs gardener-node-agent's own containerd step for osc on the node root: the real
// operatingsystemconfig.Reconciler.ReconcileContainerdConfig with an afero file system rooted at root and a real
// containerd client on socket (node-agent asks the running containerd for its version: from 2.2 on it writes CNI
// bin_dirs). node-agent execs `containerd config default` when config.toml is missing: the release's directory
// is first on PATH for it, as on a node where containerd's package put the binary on PATH.
func reconcileContainerd(t testing.TB, c installertest.Containerd, root, socket string, osc *extensionsv1alpha1.OperatingSystemConfig) error {
	t.Helper()
	t.Setenv("PATH", c.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	client, err := containerdclient.New(socket, containerdclient.WithTimeout(10*time.Second))
	if err != nil {
		return fmt.Errorf("containerd client on %s: %w", socket, err)
	}
	defer client.Close()
	r := &operatingsystemconfig.Reconciler{
		FS:               afero.Afero{Fs: afero.NewBasePathFs(afero.NewOsFs(), root)},
		ContainerdClient: client,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return r.ReconcileContainerdConfig(ctx, testr.NewWithInterface(t, testr.Options{}), osc)
}

// dumpInNode runs release c's `containerd config dump` on root's config.toml with root/etc/containerd mounted on
// /etc/containerd, so that the absolute import node-agent adds (/etc/containerd/conf.d/*.toml) is the node's, and
// returns the effective config decoded.
func dumpInNode(t testing.TB, c installertest.Containerd, root string) map[string]any {
	t.Helper()
	ensureMountPoint(t, "/etc/containerd")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := inPrivateMounts(ctx, []mount{{filepath.Join(root, "etc/containerd"), "/etc/containerd"}}, c.Bin(), "--config", configFile, "config", "dump")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s config dump of node-agent's config.toml: %v\n%s", c, err, stderr.String())
	}
	var tree map[string]any
	if err := toml.Unmarshal(stdout.Bytes(), &tree); err != nil {
		t.Fatalf("%s config dump does not parse: %v", c, err)
	}
	return tree
}

// writeInlineFiles writes the OSC's inline files under root as node-agent does (decoded by its own helper,
// the OSC's permissions); imageRef files are the extractor's (extractFiles).
func writeInlineFiles(t testing.TB, root string, files []extensionsv1alpha1.File) {
	t.Helper()
	for _, f := range files {
		if f.Content.Inline == nil {
			continue
		}
		data, err := extensionsv1alpha1helper.Decode(f.Content.Inline.Encoding, []byte(f.Content.Inline.Data))
		if err != nil {
			t.Fatalf("decoding the OSC's inline file %s: %v", f.Path, err)
		}
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, permissions(f)); err != nil {
			t.Fatal(err)
		}
	}
}

// permissions is the file's mode as node-agent takes it (0600 when the OSC gives none).
func permissions(f extensionsv1alpha1.File) os.FileMode {
	if f.Permissions == nil {
		return 0o600
	}
	return os.FileMode(*f.Permissions)
}

// removeFilesLeft deletes under root the files of old that are no longer in osc, as node-agent does for files that
// left the OSC.
func removeFilesLeft(t testing.TB, root string, old, osc []extensionsv1alpha1.File) {
	t.Helper()
	keep := map[string]bool{}
	for _, f := range osc {
		keep[f.Path] = true
	}
	for _, f := range old {
		if !keep[f.Path] {
			if err := os.Remove(filepath.Join(root, f.Path)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
}

// extractFiles copies the OSC's imageRef files with node-agent's real extractor (registry.NewExtractor) through
// the containerd serving socket: a child process (TestMain) in a private mount namespace with root/etc/containerd
// (certs.d with the registry's hosts.toml) on /etc/containerd, each destination's directory under root on the same
// node path (the mount point must exist on the machine: the harness node creates the bin dir's), and a tmpfs on
// /var/lib for node-agent's temporary directory.
func extractFiles(t testing.TB, root, socket string, files []extensionsv1alpha1.File) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ensureMountPoint(t, "/etc/containerd")
	for _, f := range files {
		if f.Content.ImageRef == nil {
			continue
		}
		dir := filepath.Dir(f.Path)
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		ensureMountPoint(t, dir)
		req, err := json.Marshal(extractRequest{Image: f.Content.ImageRef.Image, FilePathInImage: f.Content.ImageRef.FilePathInImage, Destination: f.Path, Permissions: permissions(f)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := inPrivateMounts(ctx, []mount{
			{"", "/var/lib"},
			{filepath.Join(root, "etc/containerd"), "/etc/containerd"},
			{filepath.Join(root, dir), dir},
		}, self)
		cmd.Env = append(os.Environ(), extractEnv+"="+string(req), "CONTAINERD_ADDRESS="+socket)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("node-agent's extractor for %s (%s:%s): %v\n%s", f.Path, f.Content.ImageRef.Image, f.Content.ImageRef.FilePathInImage, err, out)
		}
		t.Logf("node-agent's extractor: %s from %s in %s", f.Path, f.Content.ImageRef.Image, time.Since(start).Round(time.Millisecond))
	}
}

// lookup is installertest.Lookup that fails the test.
func lookup(t testing.TB, tree map[string]any, path ...string) any {
	t.Helper()
	v, err := installertest.Lookup(tree, path...)
	if err != nil {
		t.Fatalf("config dump: %v", err)
	}
	return v
}

// runExit runs cmd and returns its combined output and exit code (-1 when it did not run).
func runExit(cmd *exec.Cmd) (string, int) {
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		return string(out) + err.Error(), -1
	}
	return string(out), 0
}
