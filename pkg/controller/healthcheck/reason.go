// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"regexp"
	"strings"
)

// boilerplate are the parts of an installer or idle-container line that name the program rather than the cause:
// "; gvisor-installer v0.1.0 install failed" (or uninstall, prove) ends every failed installer line, and
// "; gvisor-idle reprove" ends a failed re-proof. The condition already says that gVisor is not ready on the node;
// on a real node these ~40 characters were what the end of a bounded reason was spent on, while the cause in the
// middle was cut.
var boilerplate = regexp.MustCompile(`;\s*gvisor-installer \S+ (?:install|uninstall|prove) failed|;\s*gvisor-idle reprove$`)

// longHex are container and sandbox IDs (64 hex digits) in CRI errors: 12 digits identify them, as crictl shows.
var longHex = regexp.MustCompile(`\b([0-9a-f]{12})[0-9a-f]{20,}\b`)

// clauseSeparator joins the installer's findings: its own diagnosis first ("runsc at ... is not an executable
// file"), then the raw CRI error, a fallback's outcome ("running release Y (proven again)").
const clauseSeparator = "; "

// cutMark replaces what bound leaves out of a clause.
const cutMark = " ... "

// bound cuts s to maxReasonLength characters so that every clause keeps something: the boilerplate goes, IDs are
// shortened, and if s is still too long each "; " clause gets a share of the length (short clauses whole, the
// first clause, the installer's own diagnosis, twice the share of a later one), a clause longer than its share
// keeping its start (what failed) and its end (where a wrapped Go error carries its innermost cause).
func bound(s string) string {
	if len(s) <= maxReasonLength {
		return s
	}
	s = longHex.ReplaceAllString(boilerplate.ReplaceAllString(s, ""), "$1")
	if len(s) <= maxReasonLength {
		return s
	}
	clauses := strings.Split(s, clauseSeparator)
	shares := shareOut(clauses, maxReasonLength-len(clauseSeparator)*(len(clauses)-1))
	for i, c := range clauses {
		clauses[i] = cutClause(c, shares[i])
	}
	return strings.Join(clauses, clauseSeparator)
}

// shareOut divides budget among the clauses by weight (the first 2, the rest 1): a clause that needs less than its
// share keeps its length, and what it leaves goes to the others (water-filling). Deterministic, so that the same
// reason always gives the same message (a changing message is a status update).
func shareOut(clauses []string, budget int) []int {
	weight := func(i int) int { return 1 + btoi(i == 0) }
	shares := make([]int, len(clauses))
	open := make([]int, len(clauses))
	for i := range open {
		open[i] = i
	}
	for len(open) > 0 {
		total := 0
		for _, i := range open {
			total += weight(i)
		}
		var still []int
		left := budget
		for _, i := range open {
			if len(clauses[i]) <= budget*weight(i)/total {
				shares[i], left = len(clauses[i]), left-len(clauses[i])
			} else {
				still = append(still, i)
			}
		}
		if len(still) == len(open) { // every open clause is longer than its share: each gets exactly that
			for _, i := range open {
				shares[i] = max(budget*weight(i)/total, 0)
			}
			break
		}
		open, budget = still, left
	}
	return shares
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cutClause keeps c if it fits n, else its start and its end around cutMark; a share too small for both keeps the
// start only.
func cutClause(c string, n int) string {
	if len(c) <= n {
		return c
	}
	if n < 2*len(cutMark) {
		return strings.ToValidUTF8(c[:max(n, 0)], "")
	}
	head := (n - len(cutMark)) / 2
	tail := n - len(cutMark) - head
	return strings.ToValidUTF8(c[:head], "") + cutMark + strings.ToValidUTF8(c[len(c)-tail:], "")
}
