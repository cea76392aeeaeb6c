// Command gvisor-render prints, as multi-document YAML, every object the extension puts into a shoot for the
// ContainerRuntimes in a file: the RuntimeClass chart once and each pool's installation chart.
//
//	gvisor-render -f CONTAINERRUNTIME.yaml [--image-vector-overwrite FILE] [--readiness-gate] [--prove-sandbox=false] [--uninstall]
//
// --uninstall prints what the extension puts into the shoot while it removes gVisor from the pools instead: each
// pool's installation DaemonSet in uninstall mode (pkg/render ShootUninstall).
//
// Images follow the extension's rule (see imagevector/README.md): a release build tags our images with its
// version, any other build keeps the last released tag; IMAGEVECTOR_OVERWRITE or --image-vector-overwrite apply on
// top. Exit status: 0 success, 1 bad input or render failure, 2 bad usage.
package main

import (
	"os"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

func main() {
	os.Exit(run(os.Args[1:], version.Version, os.Stdout, os.Stderr))
}
