// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Manifests are the objects of one rendered chart, in a stable order.
type Manifests struct {
	docs []document
}

type document struct {
	key  string // <kind>__<namespace>__<name>.yaml, as Gardener's managedresources registry names them
	yaml []byte
	obj  client.Object
}

// Files returns one entry per object for a ManagedResource secret: key <kind>__<namespace>__<name>.yaml
// (lower-case kind, empty namespace for cluster-scoped objects), value that object's YAML.
func (m *Manifests) Files() map[string][]byte {
	out := make(map[string][]byte, len(m.docs))
	for _, d := range m.docs {
		out[d.key] = slices.Clone(d.yaml)
	}
	return out
}

// YAML returns every object as one multi-document YAML stream, in install order (ConfigMaps before the
// DaemonSet that mounts them), each document starting with "---".
func (m *Manifests) YAML() []byte {
	var b bytes.Buffer
	for _, d := range m.docs {
		b.WriteString("---\n")
		b.Write(d.yaml)
	}
	return b.Bytes()
}

// Objects returns deep copies of the decoded objects, in the order of YAML.
func (m *Manifests) Objects() []client.Object {
	out := make([]client.Object, 0, len(m.docs))
	for _, d := range m.docs {
		out = append(out, d.obj.DeepCopyObject().(client.Object))
	}
	return out
}

// Append returns a new Manifests with the documents of m and others, re-sorted.
func (m *Manifests) Append(others ...*Manifests) *Manifests {
	out := &Manifests{docs: slices.Clone(m.docs)}
	for _, o := range others {
		out.docs = append(out.docs, o.docs...)
	}
	sortDocuments(out.docs)
	return out
}

// splitDocuments splits a YAML stream at "---" lines (a plain loop: a multi-line regexp costs more than it should).
func splitDocuments(content string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(content, "\n") {
		if strings.TrimRight(line, " \t\r\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

// newManifests splits Helm's rendered files into documents, decodes each strictly and sorts them.
func newManifests(chartName string, files map[string]string) (*Manifests, error) {
	m := &Manifests{}
	seen := map[string]string{}
	for file, content := range files {
		// Helpers and NOTES render to text that is not a manifest.
		if strings.HasPrefix(path.Base(file), "_") || strings.HasSuffix(file, "NOTES.txt") {
			continue
		}
		for _, part := range splitDocuments(content) {
			// Keep the final newline: a block scalar at the end of a document (runsc.toml) keeps it too.
			doc := strings.TrimSpace(part) + "\n"
			if isBlankYAML(doc) {
				continue
			}
			obj, err := decodeStrict([]byte(doc))
			if err != nil {
				return nil, fmt.Errorf("chart %s: %s renders an invalid object: %w", chartName, file, err)
			}
			key := fileKey(obj)
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("chart %s: %s and %s render the same object %s", chartName, other, file, key)
			}
			seen[key] = file
			m.docs = append(m.docs, document{key: key, yaml: []byte(doc), obj: obj})
		}
	}
	sortDocuments(m.docs)
	return m, nil
}

// isBlankYAML reports whether doc holds only comments and whitespace (a template whose content is disabled).
func isBlankYAML(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

func fileKey(obj client.Object) string {
	kind := strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind)
	return fmt.Sprintf("%s__%s__%s.yaml", kind, obj.GetNamespace(), strings.ReplaceAll(obj.GetName(), ":", "_"))
}

// installOrder puts objects before the ones that use them, and the readiness gate's admission policy before the
// RBAC it restricts; unknown kinds go last.
var installOrder = map[string]int{
	"runtimeclass":                     0,
	"validatingadmissionpolicy":        1,
	"validatingadmissionpolicybinding": 2,
	"clusterrole":                      3,
	"serviceaccount":                   4,
	"clusterrolebinding":               5,
	"configmap":                        6,
	"daemonset":                        7,
}

func sortDocuments(docs []document) {
	rank := func(d document) int {
		if r, ok := installOrder[strings.ToLower(d.obj.GetObjectKind().GroupVersionKind().Kind)]; ok {
			return r
		}
		return len(installOrder)
	}
	slices.SortFunc(docs, func(a, b document) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.key, b.key)
	})
}
