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
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/runscconfig"
)

// BackupPath is the node path of the copy of config.toml taken before the installer changes it.
const BackupPath = cc.ConfigPath + ".gvisor-installer.bak"

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
}

func (c Change) String() string {
	verb := "write"
	if c.removes() {
		verb = "remove"
	}
	s := verb + " " + c.NodePath
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

func (c Change) removes() bool { return c.Data == nil && c.Source == "" }

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

// PlanInstall verifies everything and returns the changes an install makes. It writes nothing.
func PlanInstall(o Options) (*Plan, error) {
	if err := o.validate(true); err != nil {
		return nil, err
	}
	log := o.Logger
	rel, err := binaries.Load(o.Source, o.NodeArch)
	if err != nil {
		return nil, err
	}
	log.Info("verified release", "step", "verify-release", "source", o.Source, "files", len(rel.Files), "arch", o.NodeArch)
	if o.ReleaseSums == "" {
		log.Warn("no controller sums (--release-sums): the release is checked only against the image's own SHA512SUMS", "step", "verify-release-anchor")
	} else {
		if err := binaries.CheckAnchor(rel, o.ReleaseSums, o.NodeArch); err != nil {
			return nil, err
		}
		log.Info("release matches the controller's sums", "step", "verify-release-anchor", "file", filepath.Join(o.ReleaseSums, binaries.AnchorFile(o.NodeArch)))
	}

	runscData := runscconfig.Empty
	if o.RunscConfig != "" {
		runscData, err = os.ReadFile(o.RunscConfig)
		if err != nil {
			return nil, refusal.Wrap(o.RunscConfig, "cannot read the runsc config", "mount the ConfigMap gvisor-installation-<pool>-runsc there, or omit --runsc-config", err)
		}
	}
	flags, err := runscconfig.Validate(o.RunscConfig, runscData)
	if err != nil {
		return nil, err
	}
	log.Info("validated runsc config", "step", "verify-runsc-config", "file", o.RunscConfig, "flags", strings.Join(flags, ","))

	doc, err := o.readContainerdConfig()
	if err != nil {
		return nil, err
	}
	if err := o.checkImportsOn1x(doc); err != nil {
		return nil, err
	}
	log.Info("parsed containerd config", "step", "parse-config", "file", cc.ConfigPath, "version", doc.Version, "plugin", doc.PluginID, "imports", strings.Join(doc.Imports, ","))

	p := &Plan{binDir: o.host(o.BinDir)}
	if err := o.findForeign(p); err != nil {
		return nil, err
	}
	binActions, err := binaries.Plan(rel, o.host(o.BinDir))
	if err != nil {
		return nil, err
	}
	for _, a := range binActions {
		p.Changes = append(p.Changes, Change{NodePath: o.nodePath(a.Path), Source: a.Source, Sum: a.Sum, Perm: binaries.Mode})
	}
	if err := o.planStaleTemps(p); err != nil {
		return nil, err
	}

	if err := o.addIfDifferent(p, Change{NodePath: cc.RunscConfigPath, Data: runscData, Perm: 0o644, Detail: "runsc flags; read at every sandbox start, no restart"}); err != nil {
		return nil, err
	}

	var edit cc.Edit
	if doc.UsesDropIn() {
		dropIn, err := cc.DropIn(doc.Version)
		if err != nil {
			return nil, err
		}
		detail := "drop-in; config.toml untouched"
		// Stale runsc tables under a wrong plugin ID (the old extension's) still go from config.toml.
		if edit, err = doc.RemoveForeignRunsc(); err != nil {
			return nil, err
		}
		if edit.Mode != cc.Unchanged {
			detail = "drop-in"
		}
		if err := o.addIfDifferent(p, Change{NodePath: cc.DropInPath, Data: dropIn, Perm: 0o644, Detail: detail, Containerd: true}); err != nil {
			return nil, err
		}
		log.Info("planned containerd drop-in", "step", "plan-config", "file", cc.DropInPath)
	} else if edit, err = doc.AddRunsc(); err != nil {
		return nil, err
	}
	log.Info("planned containerd config edit", "step", "plan-config", "file", cc.ConfigPath, "mode", string(edit.Mode), "added_runc", edit.AddedRunc,
		"removed_stale_runsc_under", strings.Join(edit.RemovedForeign, ","))
	if edit.Mode != cc.Unchanged {
		perm, err := o.perm(cc.ConfigPath, 0o644)
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes,
			Change{NodePath: BackupPath, Data: doc.Raw, Perm: perm, Detail: "backup of config.toml before the edit"},
			Change{NodePath: cc.ConfigPath, Data: edit.Content, Perm: perm, Detail: editDetail(edit), Containerd: true, Previous: doc.Raw})
	}
	p.label, p.proof = o.labelStep(true), o.proofStep()
	return p, nil
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

func (o *Options) readContainerdConfig() (*cc.Document, error) {
	// Writes replace files by rename: a symlinked config.toml would become a regular file and the link's target
	// would silently stop being the config. Its target may also lie outside what the pod mounts.
	if st, err := os.Lstat(o.host(cc.ConfigPath)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, refusal.New(cc.ConfigPath, "is a symbolic link; the installer replaces files atomically by rename and would break the link",
			"make /etc/containerd/config.toml a regular file (copy the link's target there) in the machine image or OS config")
	}
	data, exists, err := hostfs.ReadFileIfExists(o.host(cc.ConfigPath))
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, refusal.New(cc.ConfigPath, "does not exist, so the node's containerd runs on built-in defaults whose version the installer cannot know",
			"write the node's config (e.g. `containerd config default > /etc/containerd/config.toml`) in the machine image or OS config")
	}
	return cc.Parse(cc.ConfigPath, data)
}

// checkImportsOn1x refuses a version 1/2 config whose imported files define the CRI plugin table: containerd 1.x
// lets such a table replace the main file's whole CRI table (containerd#5837), so runsc in config.toml would be
// silently dropped (and the verification would roll back on every run).
func (o *Options) checkImportsOn1x(doc *cc.Document) error {
	if doc.Version >= 3 {
		return nil
	}
	matches, err := o.importedFiles(doc)
	if err != nil {
		return err
	}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return refusal.Wrap(o.nodePath(m), "imported by config.toml but unreadable", "fix or remove the file", err)
		}
		var tree map[string]any
		if err := toml.Unmarshal(data, &tree); err != nil {
			return refusal.Wrap(o.nodePath(m), "imported by config.toml but not valid TOML", "repair the file", err)
		}
		plugins, _ := tree["plugins"].(map[string]any)
		if _, ok := plugins[doc.PluginID]; ok {
			return refusal.New(o.nodePath(m), fmt.Sprintf("defines plugins.%q, which on containerd 1.x replaces config.toml's whole CRI table (containerd#5837)", doc.PluginID),
				"move those CRI settings into /etc/containerd/config.toml, or upgrade the node to containerd 2.x (config version 3)")
		}
	}
	return nil
}

// addIfDifferent adds c unless the node already has exactly that content and mode.
func (o *Options) addIfDifferent(p *Plan, c Change) error {
	same, err := hostfs.SameContent(o.host(c.NodePath), c.Data, c.Perm)
	if err != nil {
		return err
	}
	if same {
		return nil
	}
	prev, _, err := hostfs.ReadFileIfExists(o.host(c.NodePath))
	if err != nil {
		return err
	}
	c.Previous = prev
	p.Changes = append(p.Changes, c)
	return nil
}

func (o *Options) perm(nodePath string, def fs.FileMode) (fs.FileMode, error) {
	st, err := os.Stat(o.host(nodePath))
	if errors.Is(err, fs.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inspecting %s: %w", nodePath, err)
	}
	return st.Mode().Perm(), nil
}

func (o *Options) nodePath(hostPath string) string {
	rel, err := filepath.Rel(o.HostRoot, hostPath)
	if err != nil {
		return hostPath
	}
	return "/" + filepath.ToSlash(rel)
}

// importedFiles returns the host paths of the files config.toml imports, in containerd's order: each pattern
// relative to /etc/containerd unless absolute, globbed under the host root.
func (o *Options) importedFiles(doc *cc.Document) ([]string, error) {
	var files []string
	for _, pattern := range doc.Imports {
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(filepath.Dir(cc.ConfigPath), pattern)
		}
		matches, err := filepath.Glob(o.host(pattern))
		if err != nil {
			return nil, refusal.Wrap(cc.ConfigPath, fmt.Sprintf("import pattern %q is invalid", pattern), "fix the imports list", err)
		}
		files = append(files, matches...)
	}
	return files, nil
}

// findForeign records and logs the runtime-named files in the bin dir that are not ours (binaries.Foreign). They
// are not touched: the bin dir is shared by every ContainerRuntime extension, and deleting another one's shim would
// break its pods. But Gardener's containerd drop-in puts the bin dir first on containerd's PATH, so a stray
// containerd-shim-runc-v2 or runc there runs as root for every runc pod: the operator must hear about it.
func (o *Options) findForeign(p *Plan) error {
	names, err := binaries.Foreign(o.host(o.BinDir))
	if err != nil {
		return err
	}
	for _, n := range names {
		p.Foreign = append(p.Foreign, filepath.ToSlash(filepath.Join(o.BinDir, n)))
	}
	if len(p.Foreign) > 0 {
		o.Logger.Warn("foreign runtime-named files in the bin dir, left untouched: containerd runs them from PATH as root",
			"step", "check-bin-dir", "dir", o.BinDir, "files", strings.Join(p.Foreign, ","),
			"fix", "remove them unless another container runtime extension installed them")
	}
	return nil
}
