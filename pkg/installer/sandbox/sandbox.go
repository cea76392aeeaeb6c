// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package sandbox proves that gVisor works on the node: it starts a real, minimal pod sandbox with the runsc
// runtime handler through containerd's CRI, the way the kubelet starts a gVisor pod, checks it and removes it.
//
// Configuration checks cannot tell whether a sandbox starts: containerd 1.6 has runsc registered and every CRI
// check green, and still cannot start the shim we ship; a runsc that does not run on the node's kernel, or a
// containerd update, breaks a node that worked. Starting a sandbox tells.
//
// The sandbox is what a BestEffort gVisor pod without containers is: host network (NamespaceOption Network=NODE,
// so no CNI is involved and the pod network's state does not matter), the node's configured sandbox (pause) image
// (containerd pulls it if absent), the kubelet's BestEffort QoS cgroup as parent in the cgroup driver containerd
// reports, metadata name SandboxName in namespace kube-system with a fresh UID per run and the label LabelKey. No
// container is needed: starting the sandbox starts the shim, which boots the gVisor sentry and runs the pause
// process in it. gVisor gives a host-network sandbox a network namespace of its own unless runsc runs with
// --network=host, so the proof cannot touch the node's interfaces.
//
// The kubelet does not know this pod and may stop it during its housekeeping; a proof that finds its sandbox
// stopped right after a successful start tries once more.
//
// Each sandbox gets a log directory of its own in containerd's run directory (logdir.go), where the runsc shim has
// `runsc boot` write its stderr: when boot dies, containerd's CRI error ends in "waiting for sandbox to start: EOF",
// and the proof's error gets runsc's own reason from there (reason.go). The directory is removed after every
// proof.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

const (
	// SandboxName is the proof sandbox's CRI name (crictl pods shows it).
	SandboxName = "gvisor-installer-proof"
	// SandboxNamespace is the proof sandbox's CRI namespace.
	SandboxNamespace = "kube-system"
	// LabelKey marks every proof sandbox, so that a later run finds and removes those an interrupted run left. The
	// kubelet copies a pod's labels into its sandbox's, so the label alone does not make a sandbox ours (ours).
	LabelKey = "gvisor.runtime.extensions.gardener.cloud/sandbox-proof"
	// kubeletPodUIDLabel is the label the kubelet gives every sandbox it creates (the pod's UID; a pod's own label
	// of that name is overwritten), and a proof sandbox never has.
	kubeletPodUIDLabel = "io.kubernetes.pod.uid"
	// labelValue names the program that made it.
	labelValue = "gvisor-installer"
	// CreatorAnnotation says who made the sandbox and why (CRI.Creator).
	CreatorAnnotation = "gvisor.runtime.extensions.gardener.cloud/created-by"

	// DefaultHandler is the runtime handler the installer registers.
	DefaultHandler = "runsc"
	// DefaultTimeout bounds a proof: the pause image pull (if absent), the sandbox start and the checks.
	DefaultTimeout = 60 * time.Second
	// cleanupTimeout bounds stopping and removing a proof's sandbox, on a time of its own: the sandbox ran, or the
	// proof's time ran out, and a node that is slow to tear a sandbox down (seen: a gVisor sandbox taking 17 s to
	// stop on an emulated node) has still proven that gVisor starts there; a sandbox that cannot be removed in
	// this time fails the proof.
	cleanupTimeout = 30 * time.Second
	attempts       = 2
)

// Prover proves that a gVisor sandbox starts on the node.
type Prover interface {
	Prove(ctx context.Context) (Proof, error)
}

// Proof is what a successful proof found, for the installer's summary line.
type Proof struct {
	// Handler is the runtime handler the sandbox ran with.
	Handler string
	// RuntimeType is the shim containerd ran the sandbox with (e.g. io.containerd.runsc.v1), from the sandbox's
	// verbose status; empty when containerd does not report it.
	RuntimeType string
	// Started is how long RunPodSandbox took: sandbox image ready, shim started, gVisor sentry booted.
	Started time.Duration
	// Total is the whole proof, leftover cleanup, checks and removal included.
	Total time.Duration
	// Leftovers counts sandboxes of earlier, interrupted proofs that were removed first.
	Leftovers int
	// LogDirLeft says why the proof sandbox's log directory could not be removed ("" when it was).
	LogDirLeft string
}

func (p Proof) String() string {
	s := fmt.Sprintf("gVisor sandbox started in %s", p.Started.Round(time.Millisecond))
	if p.RuntimeType != "" {
		s += " (" + p.RuntimeType + ")"
	}
	if p.LogDirLeft != "" {
		s += " (" + p.LogDirLeft + ")"
	}
	return s
}

// CRI proves over a CRI socket.
type CRI struct {
	// Socket is the CRI socket path as the installer sees it (under --host-root).
	Socket string
	// Handler is the runtime handler to start the sandbox with; empty means DefaultHandler.
	Handler string
	// Timeout bounds the proof; zero means DefaultTimeout.
	Timeout time.Duration
	// CgroupParent is the sandbox's cgroup parent; empty means the kubelet's BestEffort QoS cgroup in the driver
	// containerd reports (systemd: kubepods-besteffort.slice; cgroupfs: /kubepods/besteffort). Tests on machines
	// without a kubelet set their own.
	CgroupParent string
	// Creator goes into the sandbox's CreatorAnnotation, e.g. "gvisor-installer v0.2.0".
	Creator string
}

// Prove removes earlier proofs' sandboxes and log directories, starts one sandbox with the handler, checks that it
// runs with it, and stops and removes it. A failure returns an error carrying containerd's own text, followed by
// runsc's ("; runsc: <line>") where containerd's does not say it, and leaves no sandbox and no log directory behind.
func (c CRI) Prove(ctx context.Context) (Proof, error) {
	if c.Handler == "" {
		c.Handler = DefaultHandler
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	conn, err := verify.Dial(c.Socket)
	if err != nil {
		return Proof{}, err
	}
	defer conn.Close()
	rs := runtimeapi.NewRuntimeServiceClient(conn)

	proof := Proof{Handler: c.Handler}
	if proof.Leftovers, err = c.removeAll(ctx, rs); err != nil {
		return proof, fmt.Errorf("removing the sandboxes of earlier proofs (label %s): %w", LabelKey, err)
	}
	// Best effort, as the log directories themselves (attempt): a leftover costs a few bytes of tmpfs.
	_ = removeAllLogDirs(c.Socket)
	parent := c.CgroupParent
	if parent == "" {
		if parent, err = besteffortParent(ctx, rs); err != nil {
			return proof, err
		}
	}
	for attempt := 1; ; attempt++ {
		stopped, err := c.attempt(ctx, rs, parent, &proof)
		if err == nil {
			proof.Total = time.Since(start)
			return proof, nil
		}
		if !stopped || attempt == attempts || ctx.Err() != nil {
			return proof, err
		}
	}
}

// attempt runs one sandbox with a log directory of its own (logdir.go). A failure's error gets runsc's reason
// from that directory and leaves no sandbox behind; the directory is removed in every case.
func (c CRI) attempt(ctx context.Context, rs runtimeapi.RuntimeServiceClient, parent string, proof *Proof) (stopped bool, err error) {
	cfg, err := c.config(parent)
	if err != nil {
		return false, err
	}
	// The log directory only adds runsc's reason to a failure: a proof whose directory cannot be created (a
	// read-only /run/containerd) still proves, and says that the reason was not captured.
	logs, lerr := newLogDir(c.Socket, cfg.GetMetadata().GetUid())
	if lerr == nil {
		cfg.LogDirectory = logs.node
	}
	stopped, err = c.once(ctx, rs, cfg, proof)
	if err != nil {
		if lerr == nil {
			err = withReason(err, logs.host)
		} else {
			err = fmt.Errorf("%w (runsc's own reason not captured: %v)", err, lerr)
		}
		// Never leave a sandbox behind, also when the proof's own time ran out.
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		_, cerr := c.removeAll(cctx, rs)
		ccancel()
		if cerr != nil {
			err = fmt.Errorf("%w; removing the proof sandbox: %v", err, cerr)
		}
	}
	if lerr != nil {
		return stopped, err
	}
	if rerr := logs.remove(); rerr != nil {
		if err != nil {
			return stopped, fmt.Errorf("%w; %v", err, rerr)
		}
		// gVisor works: a directory left on the node's tmpfs does not unprove it, and the next proof removes it.
		proof.LogDirLeft = rerr.Error()
	}
	return stopped, err
}

// deadlineHit: the call ended because the proof's deadline passed. gRPC ends the call on its own timer for the
// context's deadline, which can fire a moment before the context reports it, so its DeadlineExceeded counts too.
func deadlineHit(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded
}

// once runs one sandbox. stopped reports a sandbox that started but was no longer running at the check (something
// else stopped it; the kubelet's housekeeping may stop pods it does not know).
func (c CRI) once(ctx context.Context, rs runtimeapi.RuntimeServiceClient, cfg *runtimeapi.PodSandboxConfig, proof *Proof) (stopped bool, err error) {
	t0 := time.Now()
	run, err := rs.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: cfg, RuntimeHandler: c.Handler})
	if err != nil {
		if deadlineHit(ctx, err) {
			// A sandbox that hangs at boot (seen: `runsc boot` spinning on a nested VM's KVM) gives containerd
			// nothing to report; say what happened and for how long, not only gRPC's "deadline exceeded".
			return false, fmt.Errorf("starting a pod sandbox with runtime handler %q over %s: %w after %s: %w",
				c.Handler, c.Socket, errHung, time.Since(t0).Round(time.Second), err)
		}
		return false, fmt.Errorf("starting a pod sandbox with runtime handler %q over %s: %w", c.Handler, c.Socket, err)
	}
	proof.Started = time.Since(t0)
	id := run.GetPodSandboxId()
	st, err := rs.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: id, Verbose: true})
	if err != nil {
		return false, fmt.Errorf("CRI PodSandboxStatus of the proof sandbox %s: %w", id, err)
	}
	status := st.GetStatus()
	if h := status.GetRuntimeHandler(); h != "" && h != c.Handler {
		return false, fmt.Errorf("the proof sandbox %s runs with runtime handler %q, want %q", id, h, c.Handler)
	}
	proof.RuntimeType = runtimeType(st.GetInfo())
	if status.GetState() != runtimeapi.PodSandboxState_SANDBOX_READY {
		return true, fmt.Errorf("the proof sandbox %s started with handler %q but is %s at the check", id, c.Handler, status.GetState())
	}
	return false, remove(ctx, rs, id)
}

// remove stops and removes the proof sandbox id that ran, within cleanupTimeout of its own (not the proof's
// remaining time), and says which step failed.
func remove(ctx context.Context, rs runtimeapi.RuntimeServiceClient, id string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if _, err := rs.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: id}); err != nil {
		return fmt.Errorf("stopping the proof sandbox %s, which ran: %w", id, err)
	}
	if _, err := rs.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: id}); err != nil {
		return fmt.Errorf("removing the proof sandbox %s, which ran: %w", id, err)
	}
	return nil
}

// config is the minimal pod: host network, a fresh UID, our label and annotation, the kubelet's BestEffort parent.
func (c CRI) config(parent string) (*runtimeapi.PodSandboxConfig, error) {
	uid, err := newUID()
	if err != nil {
		return nil, err
	}
	return podConfig(SandboxName, uid, parent, c.Creator, "proves that a gVisor sandbox starts on this node"), nil
}

// podConfig is a pod sandbox of the installer's own (ours): metadata name in SandboxNamespace, our label, an
// annotation saying who made it and why, host network, cgroup parent parent.
func podConfig(name, uid, parent, creator, purpose string) *runtimeapi.PodSandboxConfig {
	if creator == "" {
		creator = labelValue
	}
	return &runtimeapi.PodSandboxConfig{
		Metadata:    &runtimeapi.PodSandboxMetadata{Name: name, Namespace: SandboxNamespace, Uid: uid},
		Labels:      map[string]string{LabelKey: labelValue},
		Annotations: map[string]string{CreatorAnnotation: creator + ": " + purpose + "; removed at once"},
		Linux: &runtimeapi.LinuxPodSandboxConfig{
			CgroupParent: parent,
			SecurityContext: &runtimeapi.LinuxSandboxSecurityContext{
				NamespaceOptions: &runtimeapi.NamespaceOption{Network: runtimeapi.NamespaceMode_NODE, Pid: runtimeapi.NamespaceMode_POD, Ipc: runtimeapi.NamespaceMode_POD},
			},
		},
	}
}

// removeAll stops and removes every proof sandbox (ours) and returns how many there were.
func (c CRI) removeAll(ctx context.Context, rs runtimeapi.RuntimeServiceClient) (int, error) {
	list, err := rs.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: &runtimeapi.PodSandboxFilter{LabelSelector: map[string]string{LabelKey: labelValue}}})
	if err != nil {
		return 0, fmt.Errorf("CRI ListPodSandbox over %s: %w", c.Socket, err)
	}
	var errs []error
	removed := 0
	for _, s := range list.GetItems() {
		if !ours(s) {
			continue // a pod's sandbox carrying our label: the kubelet copied it from the pod, which is not ours to stop
		}
		removed++
		if _, err := rs.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: s.GetId()}); err != nil {
			errs = append(errs, fmt.Errorf("stopping sandbox %s: %w", s.GetId(), err))
			continue
		}
		if _, err := rs.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: s.GetId()}); err != nil {
			errs = append(errs, fmt.Errorf("removing sandbox %s: %w", s.GetId(), err))
		}
	}
	return removed, errors.Join(errs...)
}

// ours: s is a proof sandbox, as config makes them, or a one-shot's (OneShot): our label and name in SandboxNamespace, and none of the labels
// the kubelet gives every sandbox it creates. A tenant can label a pod like a proof sandbox, and name it like one in
// a namespace of its own, but cannot keep the kubelet from labelling its sandbox with the pod's UID.
func ours(s *runtimeapi.PodSandbox) bool {
	_, kubelet := s.GetLabels()[kubeletPodUIDLabel]
	name := s.GetMetadata().GetName()
	return s.GetLabels()[LabelKey] == labelValue && !kubelet &&
		(name == SandboxName || name == OneShotName) && s.GetMetadata().GetNamespace() == SandboxNamespace
}

// runtimeType reads runtimeType from containerd's verbose sandbox info (JSON under "info").
func runtimeType(info map[string]string) string {
	var v struct {
		RuntimeType string `json:"runtimeType"`
	}
	if json.Unmarshal([]byte(info["info"]), &v) != nil {
		return ""
	}
	return v.RuntimeType
}

func newUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generating the proof sandbox's UID: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
