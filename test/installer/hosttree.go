// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// HashTree returns, for every entry under root, its type, mode and content hash (or symlink target): two equal
// results mean the tree is byte-for-byte the same.
func HashTree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := e.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink " + target
		case info.IsDir():
			out[rel] = fmt.Sprintf("dir %v", info.Mode())
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			out[rel] = fmt.Sprintf("file %v %s", info.Mode(), hex.EncodeToString(sum[:]))
		default:
			out[rel] = fmt.Sprintf("other %v", info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
