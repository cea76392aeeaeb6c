// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// Mode says how an edit changed the file.
type Mode string

const (
	// Unchanged means the file already says what we need; nothing to write.
	Unchanged Mode = "unchanged"
	// Appended means our block was appended (or removed); every other byte of the file is as it was.
	Appended Mode = "appended"
	// Rewritten means the file had to be re-encoded as a whole (same settings, comments and layout lost).
	Rewritten Mode = "rewritten"
	// Repaired means runsc tables that were wrong (values to change, or under a plugin ID that does not match the
	// version) were cut out section by section and ours appended; every other byte of the file is as it was.
	Repaired Mode = "repaired"
	// Cut means runsc tables were cut out section by section; every other byte of the file is as it was.
	Cut Mode = "cut"
)

// Edit is the result of changing a document.
type Edit struct {
	// Content is the new file content (equal to the input when Mode is Unchanged).
	Content []byte
	Mode    Mode
	// AddedRunc is true when runc had to be listed explicitly (containerd 1.x drops its default runtimes map as
	// soon as a file lists any runtime).
	AddedRunc bool
	// RemovedForeign lists the plugin IDs whose stale runsc tables were removed (see ForeignRunsc).
	RemovedForeign []string
}

// Markers delimit the block we append, so uninstall finds exactly our bytes again.
const (
	blockBegin = "# BEGIN gvisor-installer: gVisor runtime (runsc). Managed block; `gvisor-installer uninstall` removes it."
	blockEnd   = "# END gvisor-installer"
)

// runcDefaults mirrors containerd 1.7's built-in runc entry (pkg/cri/config DefaultConfig); 1.6 reads the same
// keys and ignores sandbox_mode. Listing it restores exactly the runtime the file had implicitly.
func runcDefaults() map[string]any {
	return map[string]any{
		"runtime_type": "io.containerd.runc.v2",
		"sandbox_mode": "podsandbox",
		"options": map[string]any{
			"BinaryName":    "",
			"CriuImagePath": "",
			"CriuPath":      "",
			"CriuWorkPath":  "",
			"IoGid":         int64(0),
			"IoUid":         int64(0),
			"NoNewKeyring":  false,
			"NoPivotRoot":   false,
			"Root":          "",
			"ShimCgroup":    "",
			"SystemdCgroup": false,
		},
	}
}

// AddRunsc returns the document with runsc registered under the right plugin ID. An existing runsc table is
// adopted: keys we do not set (e.g. pod_annotations) stay, ours are set to the wanted values. runsc tables under a
// plugin ID that does not match the version (what the old field extension appended) are removed first: they are
// never in effect, and `plugins.cri` in a version 2 file stops containerd 1.x from starting at all.
func (d *Document) AddRunsc() (Edit, error) {
	fix, err := d.RemoveForeignRunsc()
	if err != nil {
		return Edit{}, err
	}
	base := d
	if fix.Mode != Unchanged {
		if base, err = Parse(d.Path, fix.Content); err != nil {
			return Edit{}, fmt.Errorf("%s without its stale runsc tables: %w", d.Path, err)
		}
	}
	e, err := base.addRunsc()
	if err != nil || fix.Mode == Unchanged {
		return e, err
	}
	e.RemovedForeign = fix.RemovedForeign
	if fix.Mode == Rewritten || e.Mode == Rewritten {
		e.Mode = Rewritten
	} else {
		e.Mode = Repaired
	}
	return e, nil
}

// defaultRuntime is the CRI default runtime name of the file, containerd's default "runc" when unset.
func (d *Document) defaultRuntime() string {
	c, _ := d.lookupTable("plugins", d.PluginID, "containerd")
	if name, ok := c["default_runtime_name"].(string); ok && name != "" {
		return name
	}
	return "runc"
}

// RemoveRunsc returns the document without runsc under any CRI plugin ID: our appended block is cut out byte for
// byte (with the runc it added, if any), other runsc tables (adopted ones, the field's extension's, stale ones under a
// wrong plugin ID) are cut out section by section; the file is rewritten only when that cannot express it.
func (d *Document) RemoveRunsc() (Edit, error) {
	expected := deepCopy(d.Tree)
	content := d.Raw
	if start, end, ok := findBlock(content); ok {
		if bytes.Contains(content[start:end], []byte("["+dottedKey(append(d.runtimesPath(), "runc"))+"]")) {
			if rt, _ := lookupTable(d.Path, expected, d.runtimesPath()...); rt != nil {
				delete(rt, "runc")
			}
		}
		content = append(append([]byte{}, content[:start]...), content[end:]...)
	}
	for _, id := range criRuntimePluginIDs {
		removeRunscAt(expected, id)
	}
	pruneEmpty(expected, d.runtimesPath())
	if bytes.Equal(content, d.Raw) && reflect.DeepEqual(expected, d.Tree) {
		return Edit{Content: d.Raw, Mode: Unchanged}, nil
	}
	return d.cutRunsc(content, expected, criRuntimePluginIDs)
}

// RemoveForeignRunsc returns the document without runsc tables under plugin IDs that do not match its version.
func (d *Document) RemoveForeignRunsc() (Edit, error) {
	foreign := d.ForeignRunsc()
	if len(foreign) == 0 {
		return Edit{Content: d.Raw, Mode: Unchanged}, nil
	}
	expected := deepCopy(d.Tree)
	for _, id := range foreign {
		removeRunscAt(expected, id)
	}
	e, err := d.cutRunsc(d.Raw, expected, foreign)
	e.RemovedForeign = foreign
	return e, err
}

// cutRunsc cuts the runsc sections of the given plugin IDs out of content and returns it when it decodes to
// expected; otherwise it rewrites the file as expected.
func (d *Document) cutRunsc(content []byte, expected map[string]any, ids []string) (Edit, error) {
	cut, _ := cutSections(content, func(p []string) bool {
		for _, id := range ids {
			if hasPrefix(p, runscPathFor(id)) {
				return true
			}
		}
		return false
	})
	if sameSettings(cut, expected) {
		return Edit{Content: cut, Mode: Cut}, nil
	}
	out, err := d.rewrite(expected)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Content: out, Mode: Rewritten}, nil
}

// DropIn returns the content of our conf.d drop-in for a main file of the given version (3 or later).
func DropIn(version int64) ([]byte, error) {
	if version < 3 {
		return nil, fmt.Errorf("a drop-in is only safe from config version 3 on (containerd 1.x replaces whole plugin tables from imports), got version %d", version)
	}
	id, err := PluginID(version)
	if err != nil {
		return nil, err
	}
	runscPath := []string{"plugins", id, "containerd", "runtimes", nodecontract.RuntimeName}
	lines := []string{
		"# Written by gvisor-installer: registers the gVisor runtime (runsc) with containerd's CRI plugin.",
		"# containerd merges this file into config.toml through its `imports`; `gvisor-installer uninstall` removes it.",
		fmt.Sprintf("version = %d", version),
		"",
	}
	lines = append(lines, tableText(runscPath, map[string]any{
		"runtime_type": nodecontract.RuntimeType,
		"options":      map[string]any{"TypeUrl": nodecontract.OptionsTypeURL, "ConfigPath": runscconfig.NodePath},
	})...)
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// ImportsDropIn reports whether the file's imports include our drop-in path (globs and relative paths resolved as
// containerd does: relative to the directory of the importing file).
func (d *Document) ImportsDropIn() bool {
	return matchesAny(d.Imports, nodecontract.ContainerdConfigPath, nodecontract.DropInPath)
}

// UsesDropIn reports whether the installer registers runsc through our conf.d drop-in instead of editing the
// file: only from version 3 on (containerd 2.x merges imported tables key by key; 1.x would let the drop-in's CRI
// table replace the main file's whole CRI table) and only when the file imports the drop-in's path.
func (d *Document) UsesDropIn() bool {
	return d.Version >= 3 && d.ImportsDropIn()
}

// tableText renders a table (and its sub-tables) as headers with their scalar keys, sub-tables last.
func tableText(path []string, t map[string]any) []string {
	lines := []string{"[" + dottedKey(path) + "]"}
	var subs []string
	for _, k := range sortedKeys(t) {
		if _, ok := t[k].(map[string]any); ok {
			subs = append(subs, k)
			continue
		}
		lines = append(lines, "  "+quoteKey(k)+" = "+scalarText(t[k]))
	}
	for _, k := range subs {
		lines = append(lines, tableText(child(path, k), t[k].(map[string]any))...)
	}
	return lines
}

// scalarText renders one of our scalar values the way containerd's own files do (double-quoted strings).
func scalarText(v any) string {
	if s, ok := v.(string); ok && isPlainASCII(s) {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	out, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		panic(fmt.Sprintf("encoding %v: %v", v, err)) // only our own constant scalars reach here
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(out), "v = "), "\n")
}

func isPlainASCII(s string) bool {
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// appendBlock returns base with our marked block of lines appended, in the file's line-ending style.
func (d *Document) appendBlock(base []byte, lines []string) []byte {
	eol := "\n"
	if d.CRLF {
		eol = "\r\n"
	}
	var b bytes.Buffer
	b.Write(base)
	if len(base) > 0 && !bytes.HasSuffix(base, []byte("\n")) {
		b.WriteString(eol)
	}
	b.WriteString(eol + blockBegin + eol)
	for _, l := range lines {
		b.WriteString(l + eol)
	}
	b.WriteString(blockEnd + eol)
	return b.Bytes()
}

// trimTrailingBlankLines leaves data ending in exactly one line break, so a block appended after a cut does not
// pile up blank lines.
func trimTrailingBlankLines(data []byte, crlf bool) []byte {
	trimmed := bytes.TrimRight(data, "\r\n")
	if len(trimmed) == len(data) || len(trimmed) == 0 {
		return data
	}
	if crlf {
		return append(trimmed, '\r', '\n')
	}
	return append(trimmed, '\n')
}

// findBlock locates our block including the blank line appendBlock put before it.
func findBlock(data []byte) (start, end int, ok bool) {
	i := bytes.Index(data, []byte(blockBegin))
	if i < 0 {
		return 0, 0, false
	}
	j := bytes.Index(data[i:], []byte(blockEnd))
	if j < 0 {
		return 0, 0, false
	}
	end = i + j + len(blockEnd)
	if bytes.HasPrefix(data[end:], []byte("\r\n")) {
		end += 2
	} else if bytes.HasPrefix(data[end:], []byte("\n")) {
		end++
	}
	start = i
	if bytes.HasSuffix(data[:start], []byte("\r\n\r\n")) {
		start -= 2
	} else if bytes.HasSuffix(data[:start], []byte("\n\n")) {
		start--
	}
	return start, end, true
}

// rewrite encodes expected as a whole file, in the file's line-ending style, and checks it decodes to expected.
func (d *Document) rewrite(expected map[string]any) ([]byte, error) {
	out, err := toml.Marshal(expected)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", d.Path, err)
	}
	header := "# Rewritten by gvisor-installer (the original layout could not be extended in place); the previous file is kept as a backup beside it.\n"
	out = append([]byte(header), out...)
	if d.CRLF {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if err := d.check(out, expected); err != nil {
		return nil, err
	}
	return out, nil
}

// check decodes content and compares it with expected: nothing we write may differ from what we meant.
func (d *Document) check(content []byte, expected map[string]any) error {
	got := map[string]any{}
	if err := toml.Unmarshal(content, &got); err != nil {
		return fmt.Errorf("edited %s does not parse: %w", d.Path, err)
	}
	if !reflect.DeepEqual(got, expected) {
		return fmt.Errorf("edited %s does not decode to the expected settings", d.Path)
	}
	return nil
}
