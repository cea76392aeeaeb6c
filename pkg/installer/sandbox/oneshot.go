// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

const (
	// OneShotName is the CRI name of a one-shot container's pod sandbox (crictl pods shows it).
	OneShotName = "gvisor-installer-oneshot"
	// oneShotContainer is the container's name and its log file's, in the sandbox's log directory.
	oneShotContainer = "check"
	// oneShotPoll is the pause between looks at the container's state.
	oneShotPoll = 100 * time.Millisecond
	// maxOneShotOutput bounds what Run reads of the container's output: a verdict is one line.
	maxOneShotOutput = 64 << 10
)

// OneShot runs one container to its end over CRI, in a pod sandbox of its own, with containerd's default runtime
// (runc: the host's kernel, which is what a check of the node's drivers needs) or another handler (runsc: the GPU
// proof), and returns its stdout. It is for the installer's checks of the node that need a device the installation
// pod's containers cannot open. The sandbox
// is host-network, in kube-system, labelled and named like no pod (ours), and removed with its log directory at the
// end of Run, also on failure; a Run or Prove finds and removes what an interrupted one left.
type OneShot struct {
	// Socket is the CRI socket as the installer sees it.
	Socket string
	// Image runs the container; it is pulled if the node does not have it. Empty: the pod sandbox's own image (the
	// node's pause image, which every node has), for a Command that is one of Mounts.
	Image string
	// Command is the container's command, its first element a path in Image.
	Command []string
	// Handler is the runtime handler of the pod sandbox: "" for containerd's default (runc), DefaultHandler for a
	// gVisor sandbox, whose boot failure the error then explains with runsc's own words (reason.go).
	Handler string
	// Devices are node paths of devices the container gets at the same path, read-only unless WritableDevices.
	Devices         []string
	WritableDevices bool
	// CDIDevices are fully qualified CDI device names (vendor.com/class=name) that containerd resolves with the
	// node's CDI specs and injects (devices, mounts, environment, hooks), as the kubelet asks for a device plugin's
	// or a DRA driver's devices.
	CDIDevices []string
	// Mounts are node paths the container gets at the same path, read-only (a check that runs the node's own
	// programs: the OperatingSystemConfig mode's GPU proof with the node's gvisor-gpu-check).
	Mounts []string
	// Env is the container's environment, NAME=value.
	Env []string
	// WritableRoot gives the container a writable root file system (its changes go with it); read-only otherwise.
	WritableRoot bool
	// Timeout bounds the whole run; zero means DefaultTimeout.
	Timeout time.Duration
	// CgroupParent overrides the kubelet's BestEffort cgroup (tests without a kubelet).
	CgroupParent string
	// Creator and Purpose go into the sandbox's CreatorAnnotation.
	Creator, Purpose string
}

// Run starts the container, waits for its end and returns its stdout; a non-zero exit is an error with its output.
func (o OneShot) Run(ctx context.Context) ([]byte, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	conn, err := verify.Dial(o.Socket)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rs, is := runtimeapi.NewRuntimeServiceClient(conn), runtimeapi.NewImageServiceClient(conn)
	prover := CRI{Socket: o.Socket}
	if _, err := prover.removeAll(ctx, rs); err != nil {
		return nil, fmt.Errorf("removing the sandboxes of earlier runs (label %s): %w", LabelKey, err)
	}
	if o.Image != "" {
		if err := ensureImage(ctx, is, o.Image); err != nil {
			return nil, err
		}
	}
	parent := o.CgroupParent
	if parent == "" {
		if parent, err = besteffortParent(ctx, rs); err != nil {
			return nil, err
		}
	}
	uid, err := newUID()
	if err != nil {
		return nil, err
	}
	logs, err := newLogDir(o.Socket, uid)
	if err != nil {
		return nil, err
	}
	out, err := o.run(ctx, rs, o.sandboxConfig(uid, parent, logs.node), logs.host)
	if err != nil && o.Handler != "" {
		err = withReason(err, logs.host)
	}
	// Never leave a sandbox behind, also when the run's own time ran out.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	_, cerr := prover.removeAll(cctx, rs)
	ccancel()
	return out, errors.Join(err, cerr, logs.remove())
}

func (o OneShot) sandboxConfig(uid, parent, logDir string) *runtimeapi.PodSandboxConfig {
	cfg := podConfig(OneShotName, uid, parent, o.Creator, o.Purpose)
	cfg.LogDirectory = logDir
	return cfg
}

// run starts the sandbox and the container, waits for the container's end and reads its stdout from its log.
func (o OneShot) run(ctx context.Context, rs runtimeapi.RuntimeServiceClient, cfg *runtimeapi.PodSandboxConfig, logDir string) ([]byte, error) {
	sb, err := rs.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg, RuntimeHandler: o.Handler})
	if err != nil {
		return nil, fmt.Errorf("starting a pod sandbox (runtime handler %q) over %s: %w", o.Handler, o.Socket, err)
	}
	image := o.Image
	if image == "" {
		if image, err = sandboxImage(ctx, rs, sb.GetPodSandboxId()); err != nil {
			return nil, err
		}
	}
	c, err := rs.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: sb.GetPodSandboxId(), SandboxConfig: cfg,
		Config: o.containerConfig(image)})
	if err != nil {
		return nil, fmt.Errorf("creating the container %v from %s: %w", o.Command, image, err)
	}
	id := c.GetContainerId()
	if _, err := rs.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: id}); err != nil {
		return nil, fmt.Errorf("starting the container %v: %w", o.Command, err)
	}
	code, err := waitExit(ctx, rs, id)
	if err != nil {
		return nil, fmt.Errorf("waiting for the container %v: %w", o.Command, err)
	}
	stdout, stderr, err := readCRILog(filepath.Join(logDir, oneShotContainer+".log"))
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("the container %v exited with %d: %s", o.Command, code, bytes.TrimSpace(append(stderr, stdout...)))
	}
	return stdout, nil
}

// containerConfig is the container of image as o asks for it: root without capabilities or new privileges, its
// devices, CDI devices, mounts and environment.
func (o OneShot) containerConfig(image string) *runtimeapi.ContainerConfig {
	permissions := "r"
	if o.WritableDevices {
		permissions = "rw"
	}
	devices := make([]*runtimeapi.Device, 0, len(o.Devices))
	for _, d := range o.Devices {
		devices = append(devices, &runtimeapi.Device{ContainerPath: d, HostPath: d, Permissions: permissions})
	}
	mounts := make([]*runtimeapi.Mount, 0, len(o.Mounts))
	for _, m := range o.Mounts {
		mounts = append(mounts, &runtimeapi.Mount{ContainerPath: m, HostPath: m, Readonly: true})
	}
	cdi := make([]*runtimeapi.CDIDevice, 0, len(o.CDIDevices))
	for _, name := range o.CDIDevices {
		cdi = append(cdi, &runtimeapi.CDIDevice{Name: name})
	}
	var env []*runtimeapi.KeyValue
	for _, e := range o.Env {
		k, v, _ := strings.Cut(e, "=")
		env = append(env, &runtimeapi.KeyValue{Key: k, Value: []byte(v)})
	}
	return &runtimeapi.ContainerConfig{
		Metadata:   &runtimeapi.ContainerMetadata{Name: oneShotContainer},
		Image:      &runtimeapi.ImageSpec{Image: image},
		Command:    o.Command,
		LogPath:    oneShotContainer + ".log",
		Devices:    devices,
		CDIDevices: cdi,
		Mounts:     mounts,
		Envs:       env,
		Linux: &runtimeapi.LinuxContainerConfig{SecurityContext: &runtimeapi.LinuxContainerSecurityContext{
			RunAsUser: &runtimeapi.Int64Value{Value: 0}, ReadonlyRootfs: !o.WritableRoot, NoNewPrivs: true,
			Capabilities: &runtimeapi.Capability{DropCapabilities: []string{"ALL"}},
		}},
	}
}

// sandboxImage is the image containerd started pod sandbox id from (its verbose status' "image"): the node's
// pause image.
func sandboxImage(ctx context.Context, rs runtimeapi.RuntimeServiceClient, id string) (string, error) {
	st, err := rs.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: id, Verbose: true})
	if err != nil {
		return "", fmt.Errorf("CRI PodSandboxStatus of %s: %w", id, err)
	}
	var info struct {
		Image string `json:"image"`
	}
	if err := json.Unmarshal([]byte(st.GetInfo()["info"]), &info); err != nil || info.Image == "" {
		return "", fmt.Errorf("containerd's status of sandbox %s names no sandbox image (%v)", id, err)
	}
	return info.Image, nil
}

// waitExit polls the container's state until it exited and returns its exit code.
func waitExit(ctx context.Context, rs runtimeapi.RuntimeServiceClient, id string) (int32, error) {
	for {
		st, err := rs.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: id})
		if err != nil {
			return 0, err
		}
		if st.GetStatus().GetState() == runtimeapi.ContainerState_CONTAINER_EXITED {
			return st.GetStatus().GetExitCode(), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("still %s: %w", st.GetStatus().GetState(), ctx.Err())
		case <-time.After(oneShotPoll):
		}
	}
}

// ensureImage pulls image unless the node has it.
func ensureImage(ctx context.Context, is runtimeapi.ImageServiceClient, image string) error {
	st, err := is.ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: image}})
	if err != nil {
		return fmt.Errorf("CRI ImageStatus of %s: %w", image, err)
	}
	if st.GetImage() != nil {
		return nil
	}
	if _, err := is.PullImage(ctx, &runtimeapi.PullImageRequest{Image: &runtimeapi.ImageSpec{Image: image}}); err != nil {
		return fmt.Errorf("the node does not have %s and pulling it failed: %w", image, err)
	}
	return nil
}

// readCRILog reads a container log in the CRI format ("<time> <stream> <P|F> <text>" lines) back into its
// streams, at most maxOneShotOutput bytes of each.
func readCRILog(path string) (stdout, stderr []byte, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the container's log: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxOneShotOutput)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 4)
		if len(parts) < 3 {
			continue
		}
		text := ""
		if len(parts) == 4 {
			text = parts[3]
		}
		if parts[2] == "F" {
			text += "\n"
		}
		switch {
		case parts[1] == "stdout" && len(stdout) < maxOneShotOutput:
			stdout = append(stdout, text...)
		case parts[1] == "stderr" && len(stderr) < maxOneShotOutput:
			stderr = append(stderr, text...)
		}
	}
	return stdout, stderr, sc.Err()
}
