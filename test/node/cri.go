// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// CRI call timeouts: a runsc sandbox starts in about a second here; the margins absorb a loaded 2-core machine.
const (
	podTimeout  = 90 * time.Second
	callTimeout = 30 * time.Second
)

// PodSpec is a BestEffort pod, as the kubelet would ask for it.
type PodSpec struct {
	// Handler is the runtime handler (RuntimeClass handler): "runsc", or "" for containerd's default (runc).
	Handler string
	// HostNetwork runs the pod in the node's network namespace (no CNI).
	HostNetwork bool
	// Namespace is the pod's namespace; empty means gvisor-test.
	Namespace string
	// Labels are the pod's own labels, which the kubelet copies into its sandbox's beside its own (the pod's name,
	// namespace and UID).
	Labels map[string]string
}

// Pod is a started pod sandbox.
type Pod struct {
	ID     string
	Config *runtimeapi.PodSandboxConfig
	// containers numbers the pod's containers for unique names.
	containers int
}

// RunPod starts a pod sandbox in the node's cgroup parent and returns it; the error carries containerd's log.
func (n *Node) RunPod(ctx context.Context, spec PodSpec) (*Pod, error) {
	n.pods++
	name := fmt.Sprintf("pod-%d", n.pods)
	netMode := runtimeapi.NamespaceMode_POD
	if spec.HostNetwork {
		netMode = runtimeapi.NamespaceMode_NODE
	}
	logDir := n.path("logs/" + name)
	if err := os.MkdirAll(logDir, 0o755); err != nil { // the kubelet creates it
		return nil, err
	}
	namespace, uid := spec.Namespace, randomHex(8)
	if namespace == "" {
		namespace = "gvisor-test"
	}
	labels := map[string]string{}
	for k, v := range spec.Labels {
		labels[k] = v
	}
	labels["io.kubernetes.pod.name"], labels["io.kubernetes.pod.namespace"], labels["io.kubernetes.pod.uid"] = name, namespace, uid
	cfg := &runtimeapi.PodSandboxConfig{
		Metadata:     &runtimeapi.PodSandboxMetadata{Name: name, Uid: uid, Namespace: namespace},
		Labels:       labels,
		Hostname:     name,
		LogDirectory: logDir,
		Linux: &runtimeapi.LinuxPodSandboxConfig{
			CgroupParent: n.cgroupParent + "/" + name,
			SecurityContext: &runtimeapi.LinuxSandboxSecurityContext{
				NamespaceOptions: &runtimeapi.NamespaceOption{Network: netMode, Pid: runtimeapi.NamespaceMode_CONTAINER, Ipc: runtimeapi.NamespaceMode_POD},
			},
		},
	}
	ctx, cancel := context.WithTimeout(ctx, podTimeout)
	defer cancel()
	resp, err := n.rt.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg, RuntimeHandler: spec.Handler})
	if err != nil {
		return nil, n.errorf("CRI RunPodSandbox (handler %q, host network %v): %w", spec.Handler, spec.HostNetwork, err)
	}
	return &Pod{ID: resp.GetPodSandboxId(), Config: cfg}, nil
}

// StartContainer creates and starts a container of image running cmd in pod and returns its ID.
func (n *Node) StartContainer(ctx context.Context, pod *Pod, image string, cmd ...string) (string, error) {
	pod.containers++
	name := fmt.Sprintf("c%d", pod.containers)
	cfg := &runtimeapi.ContainerConfig{
		Metadata: &runtimeapi.ContainerMetadata{Name: name},
		Image:    &runtimeapi.ImageSpec{Image: image},
		Command:  cmd,
		LogPath:  name + ".log",
		// BestEffort: the kubelet gives such containers oom_score_adj 1000.
		Linux: &runtimeapi.LinuxContainerConfig{Resources: &runtimeapi.LinuxContainerResources{OomScoreAdj: 1000}},
	}
	ctx, cancel := context.WithTimeout(ctx, podTimeout)
	defer cancel()
	created, err := n.rt.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: pod.ID, Config: cfg, SandboxConfig: pod.Config})
	if err != nil {
		return "", n.errorf("CRI CreateContainer %s in pod %s: %w", image, pod.ID, err)
	}
	if _, err := n.rt.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: created.GetContainerId()}); err != nil {
		return "", n.errorf("CRI StartContainer %s in pod %s: %w", image, pod.ID, err)
	}
	return created.GetContainerId(), nil
}

// ExecSync runs cmd in the container and returns its stdout; a non-zero exit is an error with stderr.
func (n *Node) ExecSync(ctx context.Context, containerID string, cmd ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := n.rt.ExecSync(ctx, &runtimeapi.ExecSyncRequest{ContainerId: containerID, Cmd: cmd, Timeout: int64(callTimeout / time.Second)})
	if err != nil {
		return "", n.errorf("CRI ExecSync %q in %s: %w", cmd, containerID, err)
	}
	if resp.GetExitCode() != 0 {
		return string(resp.GetStdout()), fmt.Errorf("CRI ExecSync %q in %s: exit code %d, stderr %q", cmd, containerID, resp.GetExitCode(), resp.GetStderr())
	}
	return string(resp.GetStdout()), nil
}

// ContainerLog waits (bounded) until the container's log (CRI format) contains want and returns the log's
// messages joined by newlines.
func (n *Node) ContainerLog(ctx context.Context, containerID, want string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	st, err := n.rt.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: containerID})
	if err != nil {
		return "", n.errorf("CRI ContainerStatus %s: %w", containerID, err)
	}
	for {
		msgs := readCRILog(st.GetStatus().GetLogPath())
		if strings.Contains(msgs, want) {
			return msgs, nil
		}
		select {
		case <-ctx.Done():
			return msgs, n.errorf("container %s's log %s does not contain %q within %s; it has:\n%s", containerID, st.GetStatus().GetLogPath(), want, callTimeout, msgs)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// readCRILog returns the messages of a CRI log file ("<time> <stream> <F|P> <message>" lines).
func readCRILog(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 4)
		if len(parts) == 4 {
			b.WriteString(parts[3])
			if parts[2] == "F" {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// SandboxHandler returns the runtime handler CRI reports for the pod sandbox, and the runtime type from the
// verbose info (e.g. io.containerd.runsc.v1).
func (n *Node) SandboxHandler(ctx context.Context, pod *Pod) (handler, runtimeType string, err error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := n.rt.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: pod.ID, Verbose: true})
	if err != nil {
		return "", "", n.errorf("CRI PodSandboxStatus %s: %w", pod.ID, err)
	}
	var info struct {
		RuntimeHandler string `json:"runtimeHandler"`
		RuntimeType    string `json:"runtimeType"`
	}
	if raw, ok := resp.GetInfo()["info"]; ok {
		if err := json.Unmarshal([]byte(raw), &info); err != nil {
			return "", "", fmt.Errorf("decoding the verbose PodSandboxStatus info of %s: %w", pod.ID, err)
		}
	}
	handler = resp.GetStatus().GetRuntimeHandler()
	if handler == "" {
		handler = info.RuntimeHandler
	}
	return handler, info.RuntimeType, nil
}

// RuntimeHandlers returns the names of the runtimes in containerd's effective CRI config (verbose Status).
func (n *Node) RuntimeHandlers(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := n.rt.Status(ctx, &runtimeapi.StatusRequest{Verbose: true})
	if err != nil {
		return nil, n.errorf("CRI Status: %w", err)
	}
	var cfg struct {
		Containerd struct {
			Runtimes map[string]json.RawMessage `json:"runtimes"`
		} `json:"containerd"`
	}
	if err := json.Unmarshal([]byte(resp.GetInfo()["config"]), &cfg); err != nil {
		return nil, fmt.Errorf("decoding the verbose CRI Status config: %w", err)
	}
	var names []string
	for name := range cfg.Containerd.Runtimes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// StopAndRemove stops and removes the pod sandbox and its containers.
func (n *Node) StopAndRemove(ctx context.Context, pod *Pod) error {
	ctx, cancel := context.WithTimeout(ctx, podTimeout)
	defer cancel()
	if _, err := n.rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: pod.ID}); err != nil {
		return n.errorf("CRI StopPodSandbox %s: %w", pod.ID, err)
	}
	if _, err := n.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: pod.ID}); err != nil {
		return n.errorf("CRI RemovePodSandbox %s: %w", pod.ID, err)
	}
	return nil
}

// removeAllPods stops and removes every pod sandbox containerd knows (the cleanup's first step, so that
// containerd tears down their networks and shims itself).
func (n *Node) removeAllPods(ctx context.Context) error {
	resp, err := n.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return n.errorf("CRI ListPodSandbox: %w", err)
	}
	var errs []string
	for _, s := range resp.GetItems() {
		if err := n.StopAndRemove(ctx, &Pod{ID: s.GetId()}); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("removing the node's pods: %s", strings.Join(errs, "; "))
	}
	return nil
}
