package binaries

import (
	"debug/elf"
	"fmt"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/refusal"
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
// runsc (a cgo build) cannot start sandboxes, and the node may lack its libraries.
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
	if f.Machine != want {
		return refusal.New(path, fmt.Sprintf("is built for %s, but this node is %s (%s)", f.Machine, goarch, want),
			"use the installation image for the node's architecture (a multi-arch image selects it automatically)")
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return refusal.New(path, "is dynamically linked", "build gVisor with CGO_ENABLED=0 (a cgo runsc cannot start sandboxes)")
		}
	}
	return nil
}
