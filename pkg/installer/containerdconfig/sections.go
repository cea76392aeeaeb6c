// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"bytes"

	"github.com/pelletier/go-toml/v2/unstable"
)

// section is the byte range of one table header and the key/values that follow it, up to the end of the line of
// its last key/value. Comment and blank lines after that belong to nobody and are never cut.
type section struct {
	path       []string
	start, end int
}

// sections lists the table sections of data in file order; key/values before the first header (root keys) are
// not a section. ok is false when data does not parse.
func sections(data []byte) (out []section, ok bool) {
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			var path []string
			first, last := -1, 0
			for it.Next() {
				n := it.Node()
				path = append(path, string(n.Data))
				if first < 0 {
					first = int(n.Raw.Offset)
				}
				last = int(n.Raw.Offset + n.Raw.Length)
			}
			if first < 0 {
				return nil, false
			}
			out = append(out, section{path: path, start: lineStart(data, first), end: lineEnd(data, last)})
		case unstable.KeyValue:
			if len(out) > 0 {
				out[len(out)-1].end = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
			}
		}
	}
	return out, p.Error() == nil
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineEnd returns the offset after the newline that ends the line containing off-1 (or len(data)).
func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}

// cutSections returns data without every section whose header path matches; n is how many were cut. Everything
// else stays byte for byte, so cutting tables that were appended restores the file as it was before.
func cutSections(data []byte, match func(path []string) bool) (out []byte, n int) {
	secs, ok := sections(data)
	if !ok {
		return data, 0
	}
	out = make([]byte, 0, len(data))
	pos := 0
	for _, s := range secs {
		if !match(s.path) {
			continue
		}
		out = append(out, data[pos:s.start]...)
		pos = s.end
		n++
	}
	return append(out, data[pos:]...), n
}
