// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
)

// Module is this repository's Go module.
const Module = "github.com/runtime-gvisor/gardener-extension-runtime-gvisor"

// LDFlags are the linker flags of every binary of ours, the Makefile's LD_FLAGS for version: stripped, and
// pkg/version.Version stamped (release versions select our images' tags, see imagevector/).
func LDFlags(version string) string {
	return "-s -w -X " + Module + "/pkg/version.Version=" + version
}

// goEnv is the environment of the binaries' builds besides the target: static (CGO_ENABLED=0), the baseline
// instruction set of each architecture (a GOAMD64=v3 in the caller's environment would build binaries that do not
// start on older nodes), and no GOFLAGS of the caller's, so that the flags below are the build's only ones.
func goEnv(arch string) []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
}

// buildBinaries cross-compiles the commands defs need into <BinDir>/<arch>/, in one go build, and checks each one's
// build info. -buildvcs=false: the binaries depend on the source's content only, not on the work tree's state
// (the commit is the images' revision label instead).
func (b Builder) buildBinaries(ctx context.Context, arch string, defs []Image) (string, error) {
	var cmds, own []string
	versioned := map[string]bool{}
	for _, d := range defs {
		for _, bin := range d.Binaries {
			if _, seen := versioned[bin.Command]; !seen {
				if bin.OwnModule {
					own = append(own, bin.Command)
				} else {
					cmds = append(cmds, bin.Command)
				}
			}
			versioned[bin.Command] = !bin.Unversioned
		}
	}
	sort.Strings(cmds)
	sort.Strings(own)
	dir, err := filepath.Abs(filepath.Join(b.BinDir, arch))
	if err != nil {
		return "", fmt.Errorf("binary directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("binary directory: %w", err)
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", LDFlags(b.Version), "-o", dir + string(filepath.Separator)}
	for _, c := range cmds {
		args = append(args, "./cmd/"+c)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = b.SourceDir, goEnv(arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s for linux/%s (go %s): %w\n%s", strings.Join(cmds, ", "), arch, strings.Join(args, " "), err, out)
	}
	for _, c := range cmds {
		if err := b.checkBinary(filepath.Join(dir, c), Module+"/cmd/"+c, arch, versioned[c]); err != nil {
			return "", err
		}
	}
	for _, c := range own {
		if !b.hasOwnModule(c) {
			continue // an earlier tree without this command (binaryLayer leaves it out)
		}
		if err := b.buildOwnModule(ctx, arch, dir, c); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// checkBinary refuses a binary that is not the build this package asks for: its Go build info must say the main
// package, linux, arch, CGO_ENABLED=0, -trimpath and, if set, the pinned toolchain. Go leaves -ldflags out of the
// build info of -trimpath builds, so their effect is checked instead: stripped (no symbol table, no DWARF) and the
// version's text in the binary.
func (b Builder) checkBinary(p, mainPath, arch string, versioned bool) error {
	info, err := checkStatic(p, arch, map[string]string{"-trimpath": "true"})
	if err != nil {
		return err
	}
	if err := checkStripped(p, b.Version, versioned); err != nil {
		return err
	}
	if info.Path != mainPath {
		return fmt.Errorf("%s is %s, not %s", p, info.Path, mainPath)
	}
	if b.GoVersion != "" && info.GoVersion != b.GoVersion {
		return fmt.Errorf("%s was built with %s, the release is built with %s (GO_VERSION): run with that toolchain, for example GOTOOLCHAIN=%s",
			p, info.GoVersion, b.GoVersion, b.GoVersion)
	}
	return nil
}

// checkStatic refuses a Go binary that is not a static linux/arch build (GOOS, GOARCH, CGO_ENABLED=0 in its build
// info) or whose other build settings differ from extra, and returns its build info: an image variant with another
// architecture's binary or a cgo one fails here, not on the nodes.
func checkStatic(p, arch string, extra map[string]string) (*debug.BuildInfo, error) {
	info, err := buildinfo.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading the Go build info of %s: %w", p, err)
	}
	want := map[string]string{"GOOS": "linux", "GOARCH": arch, "CGO_ENABLED": "0"}
	for k, v := range extra {
		want[k] = v
	}
	got := map[string]string{}
	for _, s := range info.Settings {
		got[s.Key] = s.Value
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			return nil, fmt.Errorf("%s is not the build for linux/%s: its build info has %s=%q, want %q", p, arch, k, got[k], want[k])
		}
	}
	return info, nil
}

// checkStripped refuses a binary with a symbol table or DWARF (-s -w missing) or, if versioned, without version in
// it (the -X stamp missing).
func checkStripped(p, version string, versioned bool) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("reading %s as ELF: %w", p, err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			return fmt.Errorf("%s has the section %s: it was not linked with -s -w", p, s.Name)
		}
	}
	if !versioned {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if !bytes.Contains(data, []byte(version)) {
		return fmt.Errorf("%s does not carry its version %s: it was not linked with -X %s/pkg/version.Version (or, a command that is its own module, -X main.version)", p, version, Module)
	}
	return nil
}
