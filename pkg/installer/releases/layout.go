// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases

import (
	"crypto/sha512"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// unsafeChars are replaced in ids: an id is one path component.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ID names a release by its version and a digest of its files' names and checksums.
func ID(rel *binaries.Release) string {
	h := sha512.New()
	for _, f := range rel.Files {
		h.Write([]byte(f.Name + " " + f.Sum + "\n"))
	}
	return sanitize(rel.Version()) + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// LegacyID names a release adopted from the flat layout by its runsc's checksum.
func LegacyID(runscSum string) string { return nodecontract.LegacyPrefix + runscSum[:12] }

func sanitize(s string) string {
	s = strings.Trim(unsafeChars.ReplaceAllString(s, "_"), "._")
	if s == "" {
		return "unknown"
	}
	return s
}
