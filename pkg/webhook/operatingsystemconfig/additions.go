// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

const (
	// ProofUnitName is the oneshot unit that proves a runsc sandbox starts on the node.
	ProofUnitName = "gvisor-sandbox-proof.service"
	// ProofTimerName is the timer that runs ProofUnitName again every re-proof interval (prooftimer.go); systemd
	// pairs a timer with the service of the same name.
	ProofTimerName = "gvisor-sandbox-proof.timer"
	// InstallerBinary is the installer's file name in the binaryPath (it runs the sandbox proof).
	InstallerBinary = "gvisor-installer"
	// GPUCheckBinary is the GPU pre-flight's file name in the binaryPath: the proof unit has it judge a GPU node's
	// driver and turns nvproxy on in runsc.toml for a supported one (gvisor-installer prove --nvproxy-preflight-binary).
	GPUCheckBinary = "gvisor-gpu-check"
	// gpuCheckInImage is its path in the installation image (pkg/images.GPUCheckPath).
	gpuCheckInImage = "/gvisor-gpu-check"
	// DropInPath is the DaemonSet installer's containerd drop-in (containerd 2.x registers runsc there). The OSC
	// claims it with a comment-only file: on a switch from the DaemonSet mode node-agent overwrites the drop-in
	// (runsc is then registered in config.toml only, with the same values), and deletes it with our other files
	// when gVisor leaves the pool, so no unowned registration outlives the binaries. A file without tables changes
	// nothing in containerd's effective config (checked with containerd 1.7.35 and 2.4.2 `config dump`).
	DropInPath = nodecontract.DropInPath
	// DropInClaim is the drop-in's content.
	DropInClaim = "# gVisor's runsc is registered in config.toml by gardener-node-agent (OperatingSystemConfig delivery).\n"

	binaryPermissions = 0o755
	configPermissions = 0o644
)

// imageFiles are the files taken from the installation image into the binaryPath: file name -> path in the image
// (pkg/images' runtime-gvisor-installation image, which a test holds them to).
var imageFiles = [][2]string{
	{InstallerBinary, "/" + InstallerBinary},
}

// stagedFiles are the release files node-agent stages for the activation (gvisor-installer prove --activate): path
// under the binaryPath -> path in the installation image. The activation copies them into the release layout, as the
// DaemonSet's installer copies them from the image; nothing runs from here.
var stagedFiles = [][2]string{
	{nodecontract.StagedRelease + "/" + nodecontract.Runsc, "/opt/gvisor/" + nodecontract.Runsc},
	{nodecontract.StagedRelease + "/" + nodecontract.Shim, "/opt/gvisor/" + nodecontract.Shim},
	{nodecontract.StagedRelease + "/" + nodecontract.SumsFile, "/opt/gvisor/" + nodecontract.SumsFile},
}

// PluginPath is the path of our entry in spec.criConfig.containerd.plugins. gardener-node-agent prefixes "plugins"
// and, for containerd config versions 3 and 4, maps io.containerd.grpc.v1.cri/containerd/runtimes to
// io.containerd.cri.v1.runtime/containerd/runtimes (pluginPathReplacements in
// pkg/nodeagent/controller/operatingsystemconfig/containerd_config.go), so this one path serves every version.
func PluginPath() []string {
	return []string{"io.containerd.grpc.v1.cri", "containerd", "runtimes", "runsc"}
}

// pluginValues is what our DaemonSet installer registers (pkg/installer/containerdconfig). Marshalled once: the
// same bytes on every mutation keep the mutation idempotent (encoding/json sorts map keys).
var pluginValues = func() []byte {
	raw, err := json.Marshal(map[string]any{
		"runtime_type": nodecontract.RuntimeType,
		"options":      map[string]any{"TypeUrl": nodecontract.OptionsTypeURL, "ConfigPath": runscconfig.NodePath},
	})
	if err != nil {
		panic(fmt.Sprintf("encoding the runsc plugin values: %v", err))
	}
	return raw
}()

// Additions are what the webhook adds to the reconcile OSC of one gVisor pool.
type Additions struct {
	// Files, sorted by path: the staged release (imageRef), the pool's runsc flags and the controller's sums (inline)
	// under gvisor/staged, the installer (imageRef; with GPU the pre-flight too), the drop-in claim and, with sandbox
	// metrics, the metric server (imageRef).
	Files []extensionsv1alpha1.File
	// Units: the release unit, the sandbox-proof unit (which activates the release) and its timer (none when the
	// proof is off), with sandbox metrics the metric server's unit.
	Units []extensionsv1alpha1.Unit
	// Plugin is the runsc runtime entry (op add).
	Plugin extensionsv1alpha1.PluginConfig
}

// additions takes what the pool's nodes get from the renderer (render.NodeConfig, the same the DaemonSet mode's
// installation chart carries: image, runsc.toml's flags table, sandbox metrics) and turns it into OSC files and
// units.
func (e *Ensurer) additions(pr *poolRuntime) (*Additions, error) {
	objs, err := e.renderer.Shoot(render.Settings{DeliveryMode: delivery.OperatingSystemConfig, SandboxMetrics: e.opts.SandboxMetrics}, render.ShootInput{
		ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{pr.cr},
		KubernetesVersion: pr.kubernetesVersion,
		Architectures:     map[string]string{pr.cr.Spec.WorkerPool.Name: pr.architecture},
	})
	if err != nil {
		return nil, fmt.Errorf("the Shoot's %s: %w", pr.field, err)
	}
	if len(objs.Pools) != 1 || objs.Pools[0].Node == nil {
		return nil, fmt.Errorf("worker pool %q: the renderer returned nothing for the pool's nodes", pr.cr.Spec.WorkerPool.Name)
	}
	node := objs.Pools[0].Node

	binDir := pr.cr.Spec.BinaryPath
	files := []extensionsv1alpha1.File{inlineFile(path.Join(binDir, nodecontract.StagedFlags), string(node.RunscConfig))}
	for _, arch := range slices.Sorted(maps.Keys(node.ReleaseSums)) {
		files = append(files, inlineFile(path.Join(binDir, nodecontract.StagedSums, nodecontract.AnchorFile(arch)), node.ReleaseSums[arch]))
	}
	fromImage := slices.Concat(imageFiles, stagedFiles)
	if node.NVProxy {
		fromImage = append(fromImage, [2]string{GPUCheckBinary, gpuCheckInImage})
	}
	for _, f := range fromImage {
		perm := uint32(binaryPermissions)
		if path.Base(f[0]) == nodecontract.SumsFile {
			perm = configPermissions
		}
		files = append(files, extensionsv1alpha1.File{
			Path:        path.Join(binDir, f[0]),
			Permissions: &perm,
			Content: extensionsv1alpha1.FileContent{ImageRef: &extensionsv1alpha1.FileContentImageRef{
				Image: node.Image, FilePathInImage: f[1],
			}},
		})
	}
	// The proof is re-run when what it activates and proves changes: the staged release, flags and sums, the
	// installer and the GPU pre-flight (which sets runsc.toml for the node's driver), not the drop-in claim (nor the
	// metric server, which the proof does not run).
	proven := slices.Clone(files)
	files = append(files, inlineFile(DropInPath, DropInClaim))
	if node.SandboxMetrics {
		files = append(files, metricServerFile(binDir, node.Image))
	}
	slices.SortFunc(files, func(a, b extensionsv1alpha1.File) int { return strings.Compare(a.Path, b.Path) })

	add := &Additions{
		Files: files,
		Plugin: extensionsv1alpha1.PluginConfig{
			Op:     ptr.To(extensionsv1alpha1.AddPluginPathOperation),
			Path:   PluginPath(),
			Values: &apiextensionsv1.JSON{Raw: slices.Clone(pluginValues)},
		},
	}
	if add.Units, err = e.units(binDir, proven, node, pr); err != nil {
		return nil, err
	}
	return add, nil
}

// units are the pool's units of ours: the release and proof units, the proof's timer, the metric server and the
// keeper of the debug logs where the pool has them. proven are the files whose change re-runs the proof.
func (e *Ensurer) units(binDir string, proven []extensionsv1alpha1.File, node *render.NodeConfig, pr *poolRuntime) ([]extensionsv1alpha1.Unit, error) {
	// Without the proof (the extension's --prove-sandbox=false) the unit still activates the release, once per
	// change of its files, and has no timer.
	units := []extensionsv1alpha1.Unit{releaseUnit(binDir), proofUnit(binDir, proven, node.NVProxy, !e.opts.SkipSandboxProof)}
	if !e.opts.SkipSandboxProof {
		units = append(units, proofTimer(e.reproveInterval()))
	}
	if node.SandboxMetrics {
		var err error
		if units, err = appendMetricServerUnits(units, binDir, pr.shoot); err != nil {
			return nil, err
		}
	}
	if node.DebugLogs {
		units = append(units, debugLogsUnit(binDir))
	}
	return units, nil
}

func inlineFile(path, data string) extensionsv1alpha1.File {
	return extensionsv1alpha1.File{
		Path:        path,
		Permissions: ptr.To[uint32](configPermissions),
		Content: extensionsv1alpha1.FileContent{Inline: &extensionsv1alpha1.FileContentInline{
			Encoding: string(extensionsv1alpha1.PlainFileCodecID), Data: data,
		}},
	}
}

// proofUnit is the oneshot unit that puts the staged release in the release layout and starts one runsc sandbox over
// CRI once containerd runs with runsc registered (gvisor-installer prove --activate). Its filePaths make node-agent
// run it again whenever the staged release, the pool's flags, the sums or the installer change. It is not ordered before kubelet: a failed proof must not keep the pool's runc pods off the
// node. Its failure is not ignored (no "-" before ExecStart): node-agent waits up to 10 s for the unit's start job
// (Gardener's pkg/nodeagent/dbus), so a proof that fails fast fails the OSC reconcile, which node-agent
// retries and reports (Warning event, the Node's OSC checksum not updated, hence gardenlet's node health): the one
// way a node tells the Shoot's status that gVisor pods cannot run there. It does not RemainAfterExit: a oneshot
// that stays active cannot be started again, and its timer (proofTimer) starts it every re-proof interval. So
// after a proof the unit is inactive (dead), which node-agent's systemd-unit check counts healthy for a oneshot,
// or failed, which it reports in the Node's SystemdUnitsReady condition, until a later proof succeeds again.
// With nvproxy (render.NodeConfig.NVProxy) each run first judges the node's NVIDIA driver and sets nvproxy in the release's
// runsc.toml for it (--nvproxy-preflight-binary): after node-agent staged the pool's flags, and every re-proof interval,
// so a driver loaded or upgraded after boot is judged then; after a passed proof it proves the GPUs too
// (gpu.ProveNode).
func proofUnit(binDir string, files []extensionsv1alpha1.File, nvproxy, sandbox bool) extensionsv1alpha1.Unit {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	slices.Sort(paths)
	prove := path.Join(binDir, InstallerBinary) + " prove --activate --host-root=/ --bin-dir=" + binDir
	if nvproxy {
		prove += " --nvproxy-preflight-binary=" + path.Join(binDir, GPUCheckBinary)
	}
	if !sandbox {
		prove += " --prove-sandbox=false"
	}
	content := strings.Join([]string{
		"[Unit]",
		"Description=gVisor sandbox proof: start one runsc sandbox over CRI (gardener-extension-runtime-gvisor)",
		"Wants=containerd.service",
		"After=containerd.service",
		"",
		"[Service]",
		"Type=oneshot",
		"ExecStart=" + prove,
		"",
		"[Install]",
		"WantedBy=multi-user.target",
		"",
	}, "\n")
	return extensionsv1alpha1.Unit{
		Name:      ProofUnitName,
		Command:   ptr.To(extensionsv1alpha1.CommandStart),
		Enable:    ptr.To(true),
		Content:   &content,
		FilePaths: paths,
	}
}

// ReleaseUnitName is the unit that owns the release layout's lifetime on the node (releaseUnit).
const ReleaseUnitName = "gvisor-release.service"

// releaseUnit removes the release layout when gVisor leaves the pool: the activation (proofUnit) writes the release
// directories and links, which node-agent does not know, so node-agent deleting its files would leave them. The
// unit does nothing when it starts and stays active (RemainAfterExit); node-agent stops it when it leaves the OSC,
// after disabling it and before it deletes the files, so its ExecStop (gvisor-installer deactivate) still has the
// installer and tells that stop from a shutdown's or a restart's by the unit being disabled (--unless-enabled;
// cmd/gvisor-installer/deactivate.go has node-agent's order). It has no filePaths: an upgrade must not stop it.
func releaseUnit(binDir string) extensionsv1alpha1.Unit {
	installer := path.Join(binDir, InstallerBinary)
	content := strings.Join([]string{
		"[Unit]",
		"Description=gVisor release layout: removed when gVisor leaves the worker pool (gardener-extension-runtime-gvisor)",
		"",
		"[Service]",
		"Type=oneshot",
		"RemainAfterExit=yes",
		"ExecStart=" + installer + " version",
		"ExecStop=" + installer + " deactivate --host-root=/ --bin-dir=" + binDir + " --unless-enabled=" + ReleaseUnitName,
		"",
		"[Install]",
		"WantedBy=multi-user.target",
		"",
	}, "\n")
	return extensionsv1alpha1.Unit{
		Name:    ReleaseUnitName,
		Command: ptr.To(extensionsv1alpha1.CommandStart),
		Enable:  ptr.To(true),
		Content: &content,
	}
}
