// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

// testRef is a test named in the README's matrix: `package.TestName` or `package.TestName/subtest`.
var testRef = regexp.MustCompile("`([a-z0-9_./-]+)\\.(Test[A-Za-z0-9_]+)(?:/([A-Za-z0-9._-]+))?`")

// TestCompatibilityMatrixNamesRealTests: every row of the README's compatibility matrix names the tests that prove
// it or says "not proven", and every test it names is one: a top-level test function of that package and, for a
// subtest, its name as a string literal in that package's tests. A renamed or removed test fails here instead of
// leaving a cell that claims a proof no test gives.
func TestCompatibilityMatrixNamesRealTests(t *testing.T) {
	rows := matrixRows(t)
	if len(rows) < 10 {
		t.Fatalf("the README's compatibility matrix has %d rows; want every cell of it (architecture, cgroups, containerd, delivery mode, releases)", len(rows))
	}
	for _, row := range rows {
		cells := strings.Split(strings.Trim(row, "|"), "|")
		provenBy := cells[len(cells)-1]
		refs := testRef.FindAllStringSubmatch(provenBy, -1)
		if len(refs) == 0 && !strings.Contains(provenBy, "not proven") {
			t.Errorf("README matrix row names no test and does not say \"not proven\": %s", row)
		}
		for _, ref := range refs {
			checkTest(t, ref[1], ref[2], ref[3])
		}
	}
}

// matrixRows are the data rows of the first table under the README's "## Compatibility".
func matrixRows(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []string
	inSection, inTable := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inSection = line == "## Compatibility"
		case inSection && strings.HasPrefix(line, "|"):
			inTable = true
			if !strings.HasPrefix(line, "|---") && !strings.HasPrefix(line, "| architecture |") {
				rows = append(rows, line)
			}
		case inTable:
			return rows
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal(`README.md has no "## Compatibility" section with a table`)
	}
	return rows
}

// checkTest fails unless pkg's tests define name and, when sub is set, hold sub as a string literal.
func checkTest(t *testing.T, pkg, name, sub string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, pkg, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Errorf("README matrix names %s.%s, but %s has no tests", pkg, name, pkg)
		return
	}
	var src strings.Builder
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(data)
	}
	if !strings.Contains(src.String(), "func "+name+"(t *testing.T)") {
		t.Errorf("README matrix names %s.%s: no such test in %s", pkg, name, pkg)
	}
	if sub != "" && !strings.Contains(src.String(), `"`+sub+`"`) {
		t.Errorf("README matrix names %s.%s/%s: no subtest %q in %s", pkg, name, sub, sub, pkg)
	}
}
