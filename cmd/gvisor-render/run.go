package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

const usage = `Usage: gvisor-render -f CONTAINERRUNTIME.yaml [--image-vector-overwrite FILE] [--readiness-gate] [--prove-sandbox=false] [--uninstall]

Prints every object the extension puts into the shoot for the ContainerRuntime(s) in the file
(one or more YAML documents of kind ContainerRuntime, type gvisor, of one shoot). With --uninstall: what
it puts there while removing gVisor from those pools instead (each pool's installation DaemonSet in
uninstall mode; no RuntimeClass).

Flags:
`

// run is main without os.Exit, so tests drive it in-process with any version.
func run(args []string, version string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gvisor-render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "", "file with the ContainerRuntime(s) to render (- for standard input)")
	overwrite := fs.String("image-vector-overwrite", os.Getenv(imagevector.OverrideEnv),
		"image vector overwrite file (Gardener's format); defaults to $"+imagevector.OverrideEnv)
	readinessGate := fs.Bool("readiness-gate", false,
		"render with the scheduling readiness gate on (the extension's --readiness-gate setting, docs/readiness-gate.md)")
	proveSandbox := fs.Bool("prove-sandbox", true,
		"render the installer's sandbox proof on (the extension's --prove-sandbox setting); false renders --prove-sandbox=false")
	uninstall := fs.Bool("uninstall", false,
		"render the pools' uninstall mode (removal of gVisor from them: the same DaemonSets running gvisor-installer uninstall)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, version)
		return 0
	}
	if *file == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "gvisor-render: -f FILE is required, and takes no other arguments")
		fs.Usage()
		return 2
	}

	out, err := renderFile(*file, *overwrite, version, render.ShootOptions{ReadinessGate: *readinessGate, SkipSandboxProof: !*proveSandbox}, *uninstall)
	if err != nil {
		fmt.Fprintf(stderr, "gvisor-render: %v\n", err)
		if render.IsConfigurationError(err) {
			fmt.Fprintln(stderr, "gvisor-render: fix the fields named above in", *file)
		}
		return 1
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "gvisor-render: writing output: %v\n", err)
		return 1
	}
	return 0
}

// renderFile renders everything for the ContainerRuntimes in file, with images for the given build version, for
// their installation or (uninstall) their removal.
func renderFile(file, overwrite, version string, opts render.ShootOptions, uninstall bool) ([]byte, error) {
	data, err := readInput(file)
	if err != nil {
		return nil, err
	}
	crs, err := decodeContainerRuntimes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	images, err := imagevector.LoadWithOverwrite(version, overwrite)
	if err != nil {
		return nil, err
	}
	r, err := render.New(images)
	if err != nil {
		return nil, err
	}
	// An overwritten installation image comes with its release sums in the same file (gvisorReleaseSums).
	sums, err := imagevector.LoadReleaseSums(overwrite)
	if err != nil {
		return nil, err
	}
	if r, err = r.WithReleaseSums(sums); err != nil {
		return nil, err
	}
	shoot := r.Shoot
	if uninstall {
		shoot = r.ShootUninstall
	}
	m, err := shoot(opts, crs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return m.YAML(), nil
}

func readInput(file string) ([]byte, error) {
	if file == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: pass a ContainerRuntime manifest with -f, for example example/containerruntime.yaml", file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return data, nil
}
