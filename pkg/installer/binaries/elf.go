// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"debug/elf"
	"fmt"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// machines maps GOARCH to the ELF machine its binaries carry.
var machines = map[string]elf.Machine{
	"amd64":   elf.EM_X86_64,
	"arm64":   elf.EM_AARCH64,
	"386":     elf.EM_386,
	"arm":     elf.EM_ARM,
	"ppc64le": elf.EM_PPC64,
	"s390x":   elf.EM_S390,
	"riscv64": elf.EM_RISCV,
}

// checkELF refuses a file that is not a static ELF executable for goarch. Static matters: a dynamically linked
// runsc (a cgo build) cannot start sandboxes, and the node may lack its libraries. The architecture check is the
// field bug "pods not ready on amd64": an installation image whose amd64 variant carried arm64 gVisor binaries
// installed them, and every sandbox start failed. Refusing here keeps the node untouched and says why.
func checkELF(path, goarch string) error {
	want, ok := machines[goarch]
	if !ok {
		return refusal.New(path, "the node architecture "+goarch+" is not supported", "run the installer on amd64 or arm64 nodes")
	}
	f, err := elf.Open(path) // reads the headers only
	if err != nil {
		return refusal.Wrap(path, "is not an ELF executable", "the release must contain Linux binaries only", err)
	}
	defer f.Close()
	if f.Machine != want || f.Class != elf.ELFCLASS64 {
		return refusal.New(path, fmt.Sprintf("is a %s binary (ELF %s, %s), but this node is linux/%s", archOf(f), f.Machine, f.Class, goarch),
			fmt.Sprintf("the installation image's linux/%s variant carries binaries of another architecture: rebuild the image for every "+
				"platform from its one definition (`make push-images`, pkg/images: it builds each architecture's release and checks it) and "+
				"deploy its multi-arch index; never copy one architecture's gVisor release into another's image", goarch))
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return refusal.New(path, "is dynamically linked", "build gVisor with CGO_ENABLED=0 (a cgo runsc cannot start sandboxes)")
		}
	}
	return nil
}

// archOf names the platform of an ELF file as GOOS/GOARCH where we know it.
func archOf(f *elf.File) string {
	for goarch, m := range machines {
		if m == f.Machine && (f.Class == elf.ELFCLASS64) == (goarch != "386" && goarch != "arm") {
			return "linux/" + goarch
		}
	}
	return "foreign"
}
