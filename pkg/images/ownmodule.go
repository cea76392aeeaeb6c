// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// OwnModuleLDFlags are the linker flags of a command that is its own Go module (Binary.OwnModule): stripped, and
// version stamped into its main.version, as LDFlags does for the main module's commands.
func OwnModuleLDFlags(version string) string {
	return "-s -w -X main.version=" + version
}

// buildOwnModule builds ./cmd/<command>, a Go module of its own, into dir/<command> from its module directory, with
// the main module's build environment (static, baseline instruction set, -trimpath, -buildvcs=false) and the same
// checks on the result: its main package's path, linux/arch, CGO_ENABLED=0, -trimpath, the pinned toolchain,
// stripped and stamped with the version.
func (b Builder) buildOwnModule(ctx context.Context, arch, dir, command string) error {
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", OwnModuleLDFlags(b.Version), "-o", filepath.Join(dir, command), "."}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = filepath.Join(b.SourceDir, "cmd", command), goEnv(arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s (its own module, in %s) for linux/%s (go %s): %w\n%s", command, cmd.Dir, arch, strings.Join(args, " "), err, out)
	}
	return b.checkBinary(filepath.Join(dir, command), Module+"/cmd/"+command, arch, true)
}

// hasOwnModule says whether the source tree has command's module. An earlier release's tree (the upgrade test
// builds one with this tree's definitions) can predate a command that is its own module; its image then has no such
// binary, as that release's image had not. The main module's commands are always built, missing ones failing.
func (b Builder) hasOwnModule(command string) bool {
	_, err := os.Stat(filepath.Join(b.SourceDir, "cmd", command, "go.mod"))
	return err == nil
}
