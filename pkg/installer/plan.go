// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// BackupPath is the node path of the copy of config.toml taken before the installer changes it.
const BackupPath = nodecontract.ContainerdConfigPath + ".gvisor-installer.bak"

// Change is one planned write or removal on the node.
type Change struct {
	// NodePath is the path as the node sees it.
	NodePath string
	// Data is the new content; nil (and no Source) removes the file.
	Data []byte
	// Source, if set, is a verified release file copied (streaming) instead of Data; Sum is its SHA-512.
	Source, Sum string
	// Perm is the file mode of a write.
	Perm fs.FileMode
	// Detail explains the change in the summary (e.g. "appended", "drop-in").
	Detail string
	// Containerd marks changes to containerd's own configuration: only these need a restart.
	Containerd bool
	// Previous is the content before the change (nil: the file did not exist), for rollback.
	Previous []byte
	// Link, if set, makes NodePath a symbolic link to Link (replaced atomically); PreviousLink is the link's
	// target before the change ("": it was no link).
	Link, PreviousLink string
	// Adopt, if set, is the host path of a file on the node that NodePath becomes a hard link of: a binary of the
	// flat layout moved into the side-by-side layout without a copy (package releases).
	Adopt string
	// Tree marks the removal of a whole directory (a release no sandbox uses any more).
	Tree bool
	// Switch marks the change of the release new sandboxes get (the current link): restored with containerd's
	// configuration when containerd does not come back healthy, without needing a restart itself.
	Switch bool
}

func (c Change) String() string {
	verb := "write"
	switch {
	case c.Link != "":
		verb = "link"
	case c.Adopt != "":
		verb = "adopt"
	case c.removes():
		verb = "remove"
	}
	s := verb + " " + c.NodePath
	if c.Link != "" {
		s += " -> " + c.Link
	}
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

func (c Change) removes() bool {
	return c.Data == nil && c.Source == "" && c.Link == "" && c.Adopt == ""
}

// Plan is the complete list of changes a run makes, in the order it makes them.
type Plan struct {
	Changes []Change
	// BinDir is the bin dir's host path; sidecar directory cleanup happens there.
	binDir string
	// label is the readiness label step (--label-node), empty without; labelFirst runs it before the changes
	// (uninstall) instead of after them (install).
	label      string
	labelFirst bool
	// proof is the sandbox proof's step (Options.Prover), empty without; it runs after the changes, before the label.
	proof string
	// Foreign are the node paths of runtime-named files in the bin dir that are not ours (binaries.Foreign): the
	// run reports them and leaves them alone.
	Foreign []string
	// GVisor and RunscSum are the version (binaries.Release.Version) and SHA-512 of the release's runsc; install only.
	GVisor, RunscSum string
	// KeptReleases are release ids an uninstall leaves because running sandboxes use them.
	KeptReleases []string
	// release is the side-by-side layout's part of an install (release.go); nil for an uninstall.
	release *releasePlan
}

// Steps describes every step of the run in its order: the changes on the node, the sandbox proof's and the
// readiness label's.
func (p *Plan) Steps() []string {
	var steps []string
	for _, c := range p.Changes {
		steps = append(steps, c.String())
	}
	if p.proof != "" {
		steps = append(steps, p.proof)
	}
	switch {
	case p.label == "":
	case p.labelFirst:
		steps = append([]string{p.label}, steps...)
	default:
		steps = append(steps, p.label)
	}
	return steps
}

// RestartNeeded reports whether containerd's configuration changes.
func (p *Plan) RestartNeeded() bool {
	for _, c := range p.Changes {
		if c.Containerd {
			return true
		}
	}
	return false
}

// planInstall verifies everything and returns the changes an install makes: the release layout's (planLayout),
// then runsc's registration with containerd. It writes nothing.
func (r *Run) planInstall() (*Plan, error) {
	rel, runscData, err := r.loadInputs()
	if err != nil {
		return nil, err
	}
	doc, err := r.readContainerdConfig()
	if err != nil {
		return nil, err
	}
	if err := r.checkImportsOn1x(doc); err != nil {
		return nil, err
	}
	r.opts.Logger.Info("parsed containerd config", "step", "parse-config", "file", nodecontract.ContainerdConfigPath, "version", doc.Version, "plugin", doc.PluginID, "imports", strings.Join(doc.Imports, ","))
	p, err := r.planLayout(rel, runscData)
	if err != nil {
		return nil, err
	}
	if err := r.planRegister(p, doc); err != nil {
		return nil, err
	}
	p.label, p.proof = r.labelStep(true), r.proofStep()
	return p, nil
}

// loadInputs verifies the release and reads the runsc flags table, with nvproxy set for this node (the GPU
// pre-flight's verdict).
func (r *Run) loadInputs() (*binaries.Release, []byte, error) {
	rel, err := r.loadRelease()
	if err != nil {
		return nil, nil, err
	}
	runscData, err := r.loadRunscConfig()
	if err != nil {
		return nil, nil, err
	}
	if runscData, err = runscconfig.ForNode(runscData, runscconfig.NodeOptions{NVProxy: r.gpu != nil && r.gpu.NVProxy()}); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.opts.RunscConfig, err)
	}
	return rel, runscData, nil
}

// planLayout returns the changes that put rel with the runsc flags table runscData in the release layout (package
// releases), the same in both delivery modes, and remove what earlier runs left half-written.
func (r *Run) planLayout(rel *binaries.Release, runscData []byte) (*Plan, error) {
	p := &Plan{binDir: r.host(r.opts.BinDir), GVisor: rel.Version(), RunscSum: rel.File(nodecontract.Runsc).Sum}
	if err := r.findForeign(p); err != nil {
		return nil, err
	}
	if err := r.planRelease(p, rel, runscData); err != nil {
		return nil, err
	}
	if err := r.planStaleTemps(p); err != nil {
		return nil, err
	}
	return p, nil
}

// loadRelease verifies the release against the image's SHA512SUMS and, with --release-sums, against the
// controller's sums (the anchor outside the image).
func (r *Run) loadRelease() (*binaries.Release, error) {
	log := r.opts.Logger
	rel, err := binaries.Load(r.opts.Source, r.opts.NodeArch)
	if err != nil {
		return nil, err
	}
	log.Info("verified release", "step", "verify-release", "source", r.opts.Source, "files", len(rel.Files), "arch", r.opts.NodeArch, "gvisor", rel.Version())
	if r.opts.ReleaseSums == "" {
		log.Warn("no controller sums (--release-sums): the release is checked only against the image's own SHA512SUMS", "step", "verify-release-anchor")
		return rel, nil
	}
	if err := binaries.CheckAnchor(rel, r.opts.ReleaseSums, r.opts.NodeArch); err != nil {
		return nil, err
	}
	log.Info("release matches the controller's sums", "step", "verify-release-anchor", "file", filepath.Join(r.opts.ReleaseSums, nodecontract.AnchorFile(r.opts.NodeArch)))
	return rel, nil
}

// loadRunscConfig reads and validates the runsc.toml to install (an empty [runsc_config] without --runsc-config).
func (r *Run) loadRunscConfig() ([]byte, error) {
	data := runscconfig.Empty
	if r.opts.RunscConfig != "" {
		var err error
		if data, err = os.ReadFile(r.opts.RunscConfig); err != nil {
			return nil, refusal.Wrap(r.opts.RunscConfig, "cannot read the runsc config", "mount the ConfigMap gvisor-installation-<pool>-runsc there, or omit --runsc-config", err)
		}
	}
	flags, err := runscconfig.Validate(r.opts.RunscConfig, data)
	if err != nil {
		return nil, err
	}
	r.opts.Logger.Info("validated runsc config", "step", "verify-runsc-config", "file", r.opts.RunscConfig, "flags", strings.Join(flags, ","))
	return data, nil
}

// planRegister adds the changes that register runsc with containerd: our drop-in where config.toml imports it
// (stale runsc tables under a wrong plugin ID, the field's extension's, still go from config.toml), else the edit of
// config.toml, with its backup.
func (r *Run) planRegister(p *Plan, doc *cc.Document) error {
	var edit cc.Edit
	var err error
	if doc.UsesDropIn() {
		dropIn, err := cc.DropIn(doc.Version)
		if err != nil {
			return err
		}
		if edit, err = doc.RemoveForeignRunsc(); err != nil {
			return err
		}
		detail := "drop-in"
		if edit.Mode == cc.Unchanged {
			detail = "drop-in; config.toml untouched"
		}
		if err := r.addIfDifferent(p, Change{NodePath: nodecontract.DropInPath, Data: dropIn, Perm: 0o644, Detail: detail, Containerd: true}); err != nil {
			return err
		}
		r.opts.Logger.Info("planned containerd drop-in", "step", "plan-config", "file", nodecontract.DropInPath)
	} else if edit, err = doc.AddRunsc(); err != nil {
		return err
	}
	r.opts.Logger.Info("planned containerd config edit", "step", "plan-config", "file", nodecontract.ContainerdConfigPath, "mode", string(edit.Mode), "added_runc", edit.AddedRunc,
		"removed_stale_runsc_under", strings.Join(edit.RemovedForeign, ","))
	if edit.Mode == cc.Unchanged {
		return nil
	}
	perm, err := r.perm(nodecontract.ContainerdConfigPath, 0o644)
	if err != nil {
		return err
	}
	p.Changes = append(p.Changes,
		Change{NodePath: BackupPath, Data: doc.Raw, Perm: perm, Detail: "backup of config.toml before the edit"},
		Change{NodePath: nodecontract.ContainerdConfigPath, Data: edit.Content, Perm: perm, Detail: editDetail(edit), Containerd: true, Previous: doc.Raw})
	return nil
}

// editDetail says in the summary how config.toml changed, naming stale runsc tables that were removed.
func editDetail(e cc.Edit) string {
	d := string(e.Mode)
	if e.AddedRunc {
		d += ", runc listed explicitly"
	}
	for _, id := range e.RemovedForeign {
		d += fmt.Sprintf(", removed runsc under wrong plugin ID %q", id)
	}
	return d
}

func (r *Run) readContainerdConfig() (*cc.Document, error) {
	// Writes replace files by rename: a symlinked config.toml would become a regular file and the link's target
	// would silently stop being the config. Its target may also lie outside what the pod mounts.
	if st, err := os.Lstat(r.host(nodecontract.ContainerdConfigPath)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, refusal.New(nodecontract.ContainerdConfigPath, "is a symbolic link; the installer replaces files atomically by rename and would break the link",
			"make /etc/containerd/config.toml a regular file (copy the link's target there) in the machine image or OS config")
	}
	data, exists, err := hostfs.ReadFileIfExists(r.host(nodecontract.ContainerdConfigPath))
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, refusal.New(nodecontract.ContainerdConfigPath, "does not exist, so the node's containerd runs on built-in defaults whose version the installer cannot know",
			"write the node's config (e.g. `containerd config default > /etc/containerd/config.toml`) in the machine image or OS config")
	}
	return cc.Parse(nodecontract.ContainerdConfigPath, data)
}

// checkImportsOn1x refuses a version 1/2 config whose imported files define the CRI plugin table: containerd 1.x
// lets such a table replace the main file's whole CRI table (containerd#5837), so runsc in config.toml would be
// silently dropped (and the verification would roll back on every run).
func (r *Run) checkImportsOn1x(doc *cc.Document) error {
	if doc.Version >= 3 {
		return nil
	}
	matches, err := r.importedFiles(doc)
	if err != nil {
		return err
	}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return refusal.Wrap(r.nodePath(m), "imported by config.toml but unreadable", "fix or remove the file", err)
		}
		var tree map[string]any
		if err := toml.Unmarshal(data, &tree); err != nil {
			return refusal.Wrap(r.nodePath(m), "imported by config.toml but not valid TOML", "repair the file", err)
		}
		plugins, _ := tree["plugins"].(map[string]any)
		if _, ok := plugins[doc.PluginID]; ok {
			return refusal.New(r.nodePath(m), fmt.Sprintf("defines plugins.%q, which on containerd 1.x replaces config.toml's whole CRI table (containerd#5837)", doc.PluginID),
				"move those CRI settings into /etc/containerd/config.toml, or upgrade the node to containerd 2.x (config version 3)")
		}
	}
	return nil
}

// addIfDifferent adds c unless the node already has exactly that content and mode.
func (r *Run) addIfDifferent(p *Plan, c Change) error {
	same, err := hostfs.SameContent(r.host(c.NodePath), c.Data, c.Perm)
	if err != nil {
		return err
	}
	if same {
		return nil
	}
	prev, _, err := hostfs.ReadFileIfExists(r.host(c.NodePath))
	if err != nil {
		return err
	}
	c.Previous = prev
	p.Changes = append(p.Changes, c)
	return nil
}

func (r *Run) perm(nodePath string, def fs.FileMode) (fs.FileMode, error) {
	st, err := os.Stat(r.host(nodePath))
	if errors.Is(err, fs.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inspecting %s: %w", nodePath, err)
	}
	return st.Mode().Perm(), nil
}

func (r *Run) nodePath(hostPath string) string {
	rel, err := filepath.Rel(r.opts.HostRoot, hostPath)
	if err != nil {
		return hostPath
	}
	return "/" + filepath.ToSlash(rel)
}

// importedFiles returns the host paths of the files config.toml imports, in containerd's order: each pattern
// relative to /etc/containerd unless absolute, globbed under the host root.
func (r *Run) importedFiles(doc *cc.Document) ([]string, error) {
	var files []string
	for _, pattern := range doc.Imports {
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(filepath.Dir(nodecontract.ContainerdConfigPath), pattern)
		}
		matches, err := filepath.Glob(r.host(pattern))
		if err != nil {
			return nil, refusal.Wrap(nodecontract.ContainerdConfigPath, fmt.Sprintf("import pattern %q is invalid", pattern), "fix the imports list", err)
		}
		files = append(files, matches...)
	}
	return files, nil
}

// findForeign records and logs the runtime-named files in the bin dir that are not ours (binaries.Foreign). They
// are not touched: the bin dir is shared by every ContainerRuntime extension, and deleting another one's shim would
// break its pods. But Gardener's containerd drop-in puts the bin dir first on containerd's PATH, so a stray
// containerd-shim-runc-v2 or runc there runs as root for every runc pod: the operator must hear about it.
func (r *Run) findForeign(p *Plan) error {
	names, err := binaries.Foreign(r.host(r.opts.BinDir))
	if err != nil {
		return err
	}
	for _, n := range names {
		p.Foreign = append(p.Foreign, filepath.ToSlash(filepath.Join(r.opts.BinDir, n)))
	}
	if len(p.Foreign) > 0 {
		r.opts.Logger.Warn("foreign runtime-named files in the bin dir, left untouched: containerd runs them from PATH as root",
			"step", "check-bin-dir", "dir", r.opts.BinDir, "files", strings.Join(p.Foreign, ","),
			"fix", "remove them unless another container runtime extension installed them")
	}
	return nil
}
