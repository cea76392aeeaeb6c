// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"reflect"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// runscAddition is one registration of runsc in a document: the tree containerd must end up with and the tables
// that express it. Its three strategies are tried in order, each keeping more of the operator's bytes than the
// next: append (every other byte as it was), repair (an adopted runsc table cut out and appended again) and
// rewrite (the whole file re-encoded).
type runscAddition struct {
	d *Document
	// expected is the document's tree with runsc (and, where needed, runc) registered.
	expected map[string]any
	// runsc is the wanted runsc table (inside expected), existing the document's own runsc table, if any.
	runsc, existing map[string]any
	runscPath       []string
	// addRunc: runc must be listed explicitly (containerd 1.x); runcBlock and runcTables then express it.
	addRunc    bool
	runcBlock  []string
	runcTables [][]string
}

// addRunsc registers runsc in a document without runsc tables under foreign plugin IDs.
func (d *Document) addRunsc() (Edit, error) {
	a := d.newRunscAddition()
	if reflect.DeepEqual(a.expected, d.Tree) {
		return Edit{Content: d.Raw, Mode: Unchanged}, nil
	}
	if e, ok := a.appended(); ok {
		return e, nil
	}
	if e, ok := a.repaired(); ok {
		return e, nil
	}
	return a.rewritten()
}

func (d *Document) newRunscAddition() *runscAddition {
	a := &runscAddition{d: d, expected: deepCopy(d.Tree), existing: d.Runsc()}
	rtPath := d.runtimesPath()
	runtimes := ensureTable(a.expected, rtPath...)
	// containerd 1.x decodes the file's runtimes into a fresh map: without runc listed, a default runtime "runc"
	// (explicit or implicit) is missing and CRI fails to load. Files the field's extension edited can be in exactly
	// that state (runsc listed, runc not).
	a.addRunc = d.Version <= 2 && runtimes["runc"] == nil && (len(runtimes) == 0 || d.defaultRuntime() == "runc")
	if a.addRunc {
		runtimes["runc"] = runcDefaults()
		runcPath := child(rtPath, "runc")
		a.runcBlock = tableText(runcPath, runcDefaults())
		a.runcTables = [][]string{runcPath, child(runcPath, "options")}
	}
	a.runsc = ensureTable(runtimes, nodecontract.RuntimeName)
	a.runsc["runtime_type"] = nodecontract.RuntimeType
	opts := ensureTable(a.runsc, "options")
	opts["TypeUrl"] = nodecontract.OptionsTypeURL
	opts["ConfigPath"] = runscconfig.NodePath
	a.runscPath = child(rtPath, nodecontract.RuntimeName)
	return a
}

// appended adds a header per missing table. That expresses the change exactly when every table we add is new, or
// an adopted runsc table only lacks keys that sit in tables of their own; ok is false otherwise.
func (a *runscAddition) appended() (Edit, bool) {
	optsPath := child(a.runscPath, "options")
	block := append([]string{}, a.runcBlock...)
	tables := append([][]string{}, a.runcTables...)
	if a.existing == nil {
		block = append(block, tableText(a.runscPath, a.runsc)...)
		tables = append(tables, a.runscPath, optsPath)
	} else {
		switch a.existing["runtime_type"] {
		case nodecontract.RuntimeType:
		case nil:
			block = append(block, "["+dottedKey(a.runscPath)+"]", "  runtime_type = "+scalarText(nodecontract.RuntimeType))
			tables = append(tables, a.runscPath)
		default:
			return Edit{}, false
		}
		switch existingOpts := a.existing["options"]; {
		case existingOpts == nil:
			block = append(block, tableText(optsPath, a.runsc["options"].(map[string]any))...)
			tables = append(tables, optsPath)
		case !reflect.DeepEqual(existingOpts, a.runsc["options"]):
			return Edit{}, false
		}
	}
	if len(block) == 0 || !appendableTables(a.d.Raw, tables...) {
		return Edit{}, false
	}
	return a.edit(a.d.appendBlock(a.d.Raw, block), Appended)
}

// repaired cuts an adopted runsc table whose values must change out section by section and appends it again with
// its other keys kept; the operator's other bytes stay. ok is false without such a table or when cutting cannot
// express the change.
func (a *runscAddition) repaired() (Edit, bool) {
	if a.existing == nil {
		return Edit{}, false
	}
	cut, n := cutSections(a.d.Raw, func(p []string) bool { return hasPrefix(p, a.runscPath) })
	tables := append(append([][]string{}, a.runcTables...), a.runscPath, child(a.runscPath, "options"))
	if n == 0 || !appendableTables(cut, tables...) {
		return Edit{}, false
	}
	cut = trimTrailingBlankLines(cut, a.d.CRLF)
	return a.edit(a.d.appendBlock(cut, append(append([]string{}, a.runcBlock...), tableText(a.runscPath, a.runsc)...)), Repaired)
}

// rewritten re-encodes the whole file: same settings, comments and layout lost.
func (a *runscAddition) rewritten() (Edit, error) {
	content, err := a.d.rewrite(a.expected)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Content: content, Mode: Rewritten, AddedRunc: a.addRunc}, nil
}

// edit returns content as an edit of mode when it parses to exactly the expected tree.
func (a *runscAddition) edit(content []byte, mode Mode) (Edit, bool) {
	if err := a.d.check(content, a.expected); err != nil {
		return Edit{}, false
	}
	return Edit{Content: content, Mode: mode, AddedRunc: a.addRunc}, true
}
