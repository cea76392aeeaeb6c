// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// File is one verified file of the release. Content is never held in memory: files are hashed and copied
// streaming (runsc alone is ~80 MB).
type File struct {
	// Name is the slash-separated path relative to the release root, e.g. "gvisor-bin/foo".
	Name string
	// Path is the file in the release directory.
	Path string
	// Size and Sum (hex SHA-512) as verified.
	Size int64
	Sum  string
}

// Release is a verified gVisor release, files sorted by name.
type Release struct {
	Dir   string
	Files []File
}

// parseSums reads SHA512SUMS: "<128 hex>  <name>" (or " *<name>", binary mode) per line.
func parseSums(sumsPath string, data []byte) (map[string]string, error) {
	fix := "regenerate it in the release directory with `sha512sum runsc containerd-shim-runsc-v1 gvisor-bin/* > SHA512SUMS`"
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		if !ok || len(sum) != 128 || name == "" {
			return nil, refusal.New(sumsPath, fmt.Sprintf("line %d is not `<sha512 hex>  <file>`", n), fix)
		}
		if _, err := hex.DecodeString(sum); err != nil {
			return nil, refusal.New(sumsPath, fmt.Sprintf("line %d: checksum is not hex", n), fix)
		}
		clean := path.Clean(strings.TrimPrefix(name, "./"))
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, refusal.New(sumsPath, fmt.Sprintf("line %d names %q outside the release directory", n, name), fix)
		}
		if _, dup := sums[clean]; dup {
			return nil, refusal.New(sumsPath, fmt.Sprintf("line %d lists %s a second time", n, clean), fix)
		}
		sums[clean] = strings.ToLower(sum)
	}
	return sums, sc.Err()
}

// Load reads the release in dir and verifies it completely: checksums, completeness and ELF architecture.
// Any problem is a refusal naming the file and the fix.
func Load(dir, goarch string) (*Release, error) {
	sumsPath := filepath.Join(dir, nodecontract.SumsFile)
	sumsData, err := os.ReadFile(sumsPath)
	if err != nil {
		return nil, refusal.Wrap(sumsPath, "cannot read the checksum list", "the installation image must carry SHA512SUMS next to runsc (see pkg/images)", err)
	}
	sums, err := parseSums(sumsPath, sumsData)
	if err != nil {
		return nil, err
	}
	names, err := releaseFiles(dir)
	if err != nil {
		return nil, err
	}
	rel := &Release{Dir: dir}
	for _, name := range names {
		f, err := verifyFile(dir, name, sums, goarch)
		if err != nil {
			return nil, err
		}
		delete(sums, name)
		rel.Files = append(rel.Files, f)
	}
	if len(sums) > 0 {
		missing := make([]string, 0, len(sums))
		for name := range sums {
			missing = append(missing, name)
		}
		sort.Strings(missing)
		return nil, refusal.New(filepath.Join(dir, missing[0]), "is listed in "+nodecontract.SumsFile+" but missing", "rebuild the installation image so that it carries every file of the release")
	}
	if err := rel.checkNames(); err != nil {
		return nil, err
	}
	return rel, nil
}

// releaseFiles lists the regular files below dir (slash-separated, relative, sorted), SHA512SUMS aside.
func releaseFiles(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == nodecontract.SumsFile {
			return nil
		}
		if !e.Type().IsRegular() {
			return refusal.New(p, "is not a regular file", "ship only regular files in the release directory")
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		if refusal.Is(err) {
			return nil, err
		}
		return nil, refusal.Wrap(dir, "cannot read the release directory", "check --source", err)
	}
	sort.Strings(names)
	return names, nil
}

// verifyFile checks one release file against its SHA512SUMS line and the node's architecture.
func verifyFile(dir, name string, sums map[string]string, goarch string) (File, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	want, listed := sums[name]
	if !listed {
		return File{}, refusal.New(p, "is not listed in "+nodecontract.SumsFile, "list every file of the release in SHA512SUMS (or remove the stray file)")
	}
	got, size, err := hostfs.HashFile(p)
	if err != nil {
		return File{}, refusal.Wrap(p, "cannot read", "check --source", err)
	}
	if got != want {
		return File{}, refusal.New(p, "SHA-512 checksum does not match "+nodecontract.SumsFile+" (corrupt or tampered file)", "rebuild the installation image; never edit the release by hand")
	}
	if err := checkELF(p, goarch); err != nil {
		return File{}, err
	}
	return File{Name: name, Path: p, Size: size, Sum: want}, nil
}

// checkNames refuses a release without runsc or the shim, or with a file that is not part of a gVisor release.
func (r *Release) checkNames() error {
	for _, required := range []string{nodecontract.Runsc, nodecontract.Shim} {
		if r.File(required) == nil {
			return refusal.New(filepath.Join(r.Dir, required), "is missing from the release", "the installation image must carry runsc and containerd-shim-runsc-v1")
		}
	}
	for _, f := range r.Files {
		if f.Name != nodecontract.Runsc && f.Name != nodecontract.Shim && !strings.HasPrefix(f.Name, nodecontract.SideDir+"/") {
			return refusal.New(filepath.Join(r.Dir, f.Name), "is not part of a gVisor release (runsc, containerd-shim-runsc-v1, gvisor-bin/*)", "remove it from the release directory and SHA512SUMS")
		}
	}
	return nil
}

// File returns the named file, nil when the release does not have it.
func (r *Release) File(name string) *File {
	for i := range r.Files {
		if r.Files[i].Name == name {
			return &r.Files[i]
		}
	}
	return nil
}
