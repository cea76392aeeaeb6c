package containerdconfig

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Mode says how an edit changed the file.
type Mode string

const (
	// Unchanged: the file already says what we need; nothing to write.
	Unchanged Mode = "unchanged"
	// Appended: our block was appended (or removed); every other byte of the file is as it was.
	Appended Mode = "appended"
	// Rewritten: the file had to be re-encoded as a whole (same settings, comments and layout lost).
	Rewritten Mode = "rewritten"
)

// Edit is the result of changing a document.
type Edit struct {
	// Content is the new file content (equal to the input when Mode is Unchanged).
	Content []byte
	Mode    Mode
	// AddedRunc is true when runc had to be listed explicitly (containerd 1.x drops its default runtimes map as
	// soon as a file lists any runtime).
	AddedRunc bool
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
// adopted: keys we do not set (e.g. pod_annotations) stay, ours are set to the wanted values.
func (d *Document) AddRunsc() (Edit, error) {
	expected := deepCopy(d.Tree)
	rtPath := d.runtimesPath()
	runtimes := ensureTable(expected, rtPath...)
	addRunc := d.Version <= 2 && len(runtimes) == 0
	if addRunc {
		runtimes["runc"] = runcDefaults()
	}
	runsc := ensureTable(runtimes, RuntimeName)
	runsc["runtime_type"] = RuntimeType
	opts := ensureTable(runsc, "options")
	opts["TypeUrl"] = OptionsTypeURL
	opts["ConfigPath"] = RunscConfigPath

	if reflect.DeepEqual(expected, d.Tree) {
		return Edit{Content: d.Raw, Mode: Unchanged}, nil
	}

	// Append when every table we need is new, or only the options table is missing under an adopted runsc table
	// whose runtime_type is right: then a header per new table expresses the change exactly.
	existing := d.Runsc()
	var block []string
	runscPath := append(append([]string{}, rtPath...), RuntimeName)
	optsPath := append(append([]string{}, runscPath...), "options")
	var targets [][]string
	switch {
	case existing == nil:
		if addRunc {
			runcPath := append(append([]string{}, rtPath...), "runc")
			block = append(block, tableText(runcPath, runcDefaults())...)
			targets = append(targets, runcPath, append(append([]string{}, runcPath...), "options"))
		}
		block = append(block, tableText(runscPath, runsc)...)
		targets = append(targets, runscPath, optsPath)
	case existing["options"] == nil && existing["runtime_type"] == RuntimeType:
		block = append(block, tableText(optsPath, opts)...)
		targets = append(targets, optsPath)
	}
	if block != nil && appendableTables(d.Raw, targets...) {
		content := d.appendBlock(block)
		if err := d.check(content, expected); err == nil {
			return Edit{Content: content, Mode: Appended, AddedRunc: addRunc}, nil
		}
	}
	content, err := d.rewrite(expected)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Content: content, Mode: Rewritten, AddedRunc: addRunc}, nil
}

// RemoveRunsc returns the document without runsc: our appended block is cut out byte for byte (with the runc it
// added, if any); a runsc table outside it is deleted by rewriting the file.
func (d *Document) RemoveRunsc() (Edit, error) {
	content := d.Raw
	tree := d.Tree
	mode := Unchanged
	if start, end, ok := findBlock(content); ok {
		cut := append(append([]byte{}, content[:start]...), content[end:]...)
		withRunc := bytes.Contains(content[start:end], []byte("["+dottedKey(append(d.runtimesPath(), "runc"))+"]"))
		if got, ok := d.onlyBlockRemoved(cut, withRunc); ok {
			content, tree, mode = cut, got, Appended
		}
	}
	if rt, _ := lookupTable(d.Path, tree, d.runtimesPath()...); rt != nil && rt[RuntimeName] != nil {
		expected := deepCopy(tree)
		delete(ensureTable(expected, d.runtimesPath()...), RuntimeName)
		out, err := d.rewrite(expected)
		if err != nil {
			return Edit{}, err
		}
		return Edit{Content: out, Mode: Rewritten}, nil
	}
	return Edit{Content: content, Mode: mode}, nil
}

// onlyBlockRemoved decodes cut and reports whether it is the document minus exactly the tables our block held:
// adding them back must give the original tree.
func (d *Document) onlyBlockRemoved(cut []byte, withRunc bool) (map[string]any, bool) {
	got := map[string]any{}
	if err := toml.Unmarshal(cut, &got); err != nil {
		return nil, false
	}
	if rt, err := lookupTable(d.Path, got, d.runtimesPath()...); err != nil || (rt != nil && rt[RuntimeName] != nil) {
		return nil, false
	}
	restored := deepCopy(got)
	rt := ensureTable(restored, d.runtimesPath()...)
	orig, _ := d.lookupTable(d.runtimesPath()...)
	if orig == nil {
		return nil, false
	}
	rt[RuntimeName] = deepCopyValue(orig[RuntimeName])
	if withRunc {
		rt["runc"] = deepCopyValue(orig["runc"])
	}
	return got, reflect.DeepEqual(restored, d.Tree)
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
	runscPath := []string{"plugins", id, "containerd", "runtimes", RuntimeName}
	lines := []string{
		"# Written by gvisor-installer: registers the gVisor runtime (runsc) with containerd's CRI plugin.",
		"# containerd merges this file into config.toml through its `imports`; `gvisor-installer uninstall` removes it.",
		fmt.Sprintf("version = %d", version),
		"",
	}
	lines = append(lines, tableText(runscPath, map[string]any{
		"runtime_type": RuntimeType,
		"options":      map[string]any{"TypeUrl": OptionsTypeURL, "ConfigPath": RunscConfigPath},
	})...)
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// ImportsDropIn reports whether the file's imports include our drop-in path (globs and relative paths resolved as
// containerd does: relative to the directory of the importing file).
func (d *Document) ImportsDropIn() bool {
	return matchesAny(d.Imports, ConfigPath, DropInPath)
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
		lines = append(lines, tableText(append(append([]string{}, path...), k), t[k].(map[string]any))...)
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

func (d *Document) appendBlock(lines []string) []byte {
	eol := "\n"
	if d.CRLF {
		eol = "\r\n"
	}
	var b bytes.Buffer
	b.Write(d.Raw)
	if len(d.Raw) > 0 && !bytes.HasSuffix(d.Raw, []byte("\n")) {
		b.WriteString(eol)
	}
	b.WriteString(eol + blockBegin + eol)
	for _, l := range lines {
		b.WriteString(l + eol)
	}
	b.WriteString(blockEnd + eol)
	return b.Bytes()
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
