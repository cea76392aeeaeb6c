// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// The objects below are written out in full, field by field, from the installer contract (the flags
// cmd/gvisor-installer parses, the host paths pkg/installer writes, the RuntimeClass handler runsc), so that a
// change of the charts shows up as a diff against the contract, not just against a snapshot.

func expectedRuntimeClass(nodeSelector map[string]string, tolerations []corev1.Toleration, overhead *nodev1.Overhead) *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{
		TypeMeta: metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "gvisor",
			Labels: map[string]string{
				"app.kubernetes.io/name":       "gvisor",
				"app.kubernetes.io/managed-by": "gardener-extension-runtime-gvisor",
			},
		},
		Handler:    "runsc",
		Overhead:   overhead,
		Scheduling: &nodev1.Scheduling{NodeSelector: nodeSelector, Tolerations: tolerations},
	}
}

func expectedConfigMap(pool, runscToml string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "gvisor-installation-" + pool + "-runsc",
			Namespace: "kube-system",
			Labels:    selectorLabels(pool),
		},
		Data: withReleaseSums(map[string]string{"runsc.toml": runscToml}),
	}
}

// embeddedReleaseSums is the chart's releaseSums value for a pool of unknown architecture: every architecture's
// SHA512SUMS text of imagevector/gvisor-sums.yaml, which the renderer passes by default.
func embeddedReleaseSums() map[string]string {
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	for _, a := range sums.Archs() {
		out[a], _ = sums.SHA512SUMS(a)
	}
	return out
}

// withReleaseSums adds the SHA512SUMS.<arch> keys of embeddedReleaseSums to a runsc ConfigMap's data.
func withReleaseSums(data map[string]string) map[string]string {
	for a, text := range embeddedReleaseSums() {
		data["SHA512SUMS."+a] = text
	}
	return data
}

// releaseSumsChecksum is the checksum/release-sums annotation: sha256 of the value as Helm's toJson writes it.
func releaseSumsChecksum() string {
	data, err := json.Marshal(embeddedReleaseSums())
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// expectedNetworkPolicy isolates the pool's installation pods for ingress (install mode): no pod of the shoot
// reaches them, only what Gardener's allow-from-seed admits to the pods labelled for it.
func expectedNetworkPolicy(pool string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "gvisor-installation-" + pool,
			Namespace: "kube-system",
			Labels:    selectorLabels(pool),
		},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selectorLabels(pool)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
}

func selectorLabels(pool string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": pool}
}

type dsParams struct {
	pool, image, binaryPath, runscToml string
	nodeSelector                       map[string]string
	affinity                           *corev1.NodeAffinity
	tolerations                        []corev1.Toleration
	// uninstall renders the uninstall mode: command uninstall, no release or runsc config, the mode label.
	uninstall bool
	// skipSandboxProof renders install mode with --prove-sandbox=false (and the idle container without the re-proof).
	skipSandboxProof bool
	// reproveInterval is the idle container's --interval in install mode with the proof; empty: the chart's 5m.
	reproveInterval string
}

func expectedDaemonSet(p dsParams) *appsv1.DaemonSet {
	sum := sha256.Sum256([]byte(p.runscToml))
	hostPath := func(path string, t corev1.HostPathType) corev1.VolumeSource {
		return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &t}}
	}
	var affinity *corev1.Affinity
	if p.affinity != nil {
		affinity = &corev1.Affinity{NodeAffinity: p.affinity}
	}
	tolerations := p.tolerations
	if tolerations == nil {
		tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	sizeLimit := resource.MustParse("1Mi")
	ds := &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        "gvisor-installation-" + p.pool,
			Namespace:   "kube-system",
			Labels:      selectorLabels(p.pool),
			Annotations: map[string]string{"resources.gardener.cloud/delete-on-invalid-update": "true"},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selectorLabels(p.pool)},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      selectorLabels(p.pool),
					Annotations: map[string]string{"checksum/runsc-config": hex.EncodeToString(sum[:]), "checksum/release-sums": releaseSumsChecksum()},
				},
				Spec: corev1.PodSpec{
					PriorityClassName:            "system-node-critical",
					AutomountServiceAccountToken: ptr.To(false),
					NodeSelector:                 p.nodeSelector,
					Affinity:                     affinity,
					Tolerations:                  tolerations,
					SecurityContext: &corev1.PodSecurityContext{
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					InitContainers: []corev1.Container{{
						Name:                     "installer",
						Image:                    p.image,
						ImagePullPolicy:          corev1.PullIfNotPresent,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						Command: []string{
							"/gvisor-installer", "install", "--host-root=/host", "--source=/opt/gvisor",
							"--bin-dir=" + p.binaryPath, "--runsc-config=/etc/gvisor-installer/runsc.toml", "--prove-sandbox=" + strconv.FormatBool(!p.skipSandboxProof),
							"--release-sums=/etc/gvisor-installer", "--nvproxy-preflight-image=" + p.image,
							"--restart=systemd", "--ready-file=/run/gvisor-installer/ready", "--termination-message=/dev/termination-log",
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{
								corev1.ResourceCPU:    resource.MustParse("10m"),
								corev1.ResourceMemory: resource.MustParse("32Mi"),
							},
							Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
						},
						SecurityContext: &corev1.SecurityContext{
							RunAsUser:                ptr.To[int64](0),
							RunAsNonRoot:             ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "bin-dir", MountPath: "/host" + p.binaryPath},
							{Name: "containerd-config", MountPath: "/host/etc/containerd"},
							{Name: "containerd-run", MountPath: "/host/run/containerd"},
							{Name: "dbus", MountPath: "/host/run/dbus"},
							{Name: "dev", MountPath: "/host/dev", ReadOnly: true},
							{Name: "runsc-config", MountPath: "/etc/gvisor-installer", ReadOnly: true},
							{Name: "state", MountPath: "/run/gvisor-installer"},
						},
					}},
					Containers: []corev1.Container{expectedIdleContainer(p.image)},
					Volumes: []corev1.Volume{
						{Name: "bin-dir", VolumeSource: hostPath(p.binaryPath, corev1.HostPathDirectoryOrCreate)},
						{Name: "containerd-config", VolumeSource: hostPath("/etc/containerd", corev1.HostPathDirectoryOrCreate)},
						{Name: "containerd-run", VolumeSource: hostPath("/run/containerd", corev1.HostPathDirectory)},
						{Name: "dbus", VolumeSource: hostPath("/run/dbus", corev1.HostPathDirectory)},
						{Name: "dev", VolumeSource: hostPath("/dev", corev1.HostPathDirectory)},
						{Name: "runsc-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "gvisor-installation-" + p.pool + "-runsc"},
						}}},
						{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
							Medium: corev1.StorageMediumMemory, SizeLimit: &sizeLimit,
						}}},
					},
				},
			},
		},
	}
	if !p.uninstall && !p.skipSandboxProof {
		interval := p.reproveInterval
		if interval == "" {
			interval = "5m"
		}
		ds.Spec.Template.Spec.Containers = []corev1.Container{expectedReproveContainer(p.image, p.binaryPath, interval)}
		ds.Spec.Template.Spec.Volumes = append(ds.Spec.Template.Spec.Volumes, corev1.Volume{Name: "proof", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &sizeLimit},
		}})
	}
	if p.uninstall {
		// Written out, not derived: the node-side contract of the uninstall mode.
		ds.Labels = map[string]string{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": p.pool,
			"gvisor.runtime.extensions.gardener.cloud/mode": "uninstall"}
		ds.Spec.Template.Labels = map[string]string{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": p.pool,
			"gvisor.runtime.extensions.gardener.cloud/mode": "uninstall"}
		ds.Spec.Template.Annotations = nil
		c := &ds.Spec.Template.Spec.InitContainers[0]
		c.Command = []string{
			"/gvisor-installer", "uninstall", "--host-root=/host", "--bin-dir=" + p.binaryPath,
			"--restart=systemd", "--ready-file=/run/gvisor-installer/ready", "--termination-message=/dev/termination-log",
		}
		c.VolumeMounts = []corev1.VolumeMount{
			{Name: "bin-dir", MountPath: "/host" + p.binaryPath},
			{Name: "containerd-config", MountPath: "/host/etc/containerd"},
			{Name: "containerd-run", MountPath: "/host/run/containerd"},
			{Name: "dbus", MountPath: "/host/run/dbus"},
			{Name: "state", MountPath: "/run/gvisor-installer"},
		}
		ds.Spec.Template.Spec.Volumes = []corev1.Volume{
			{Name: "bin-dir", VolumeSource: hostPath(p.binaryPath, corev1.HostPathDirectoryOrCreate)},
			{Name: "containerd-config", VolumeSource: hostPath("/etc/containerd", corev1.HostPathDirectoryOrCreate)},
			{Name: "containerd-run", VolumeSource: hostPath("/run/containerd", corev1.HostPathDirectory)},
			{Name: "dbus", VolumeSource: hostPath("/run/dbus", corev1.HostPathDirectory)},
			{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: &sizeLimit,
			}}},
		}
	}
	return ds
}

// expectedIdleContainer is the installation pod's main container: gvisor-idle from the installation image, keeping
// the pod (and its init container's report) on the node, and its readiness probe on the installer's ready file;
// not root, no capability, only the ready file's emptyDir mounted, read-only.
func expectedIdleContainer(image string) corev1.Container {
	return corev1.Container{
		Name:            "idle",
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/gvisor-idle"},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{
				"/gvisor-idle", "ready", "--ready-file=/run/gvisor-installer/ready",
			}}},
			PeriodSeconds:    10,
			FailureThreshold: 3,
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("4Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi")},
		},
		SecurityContext: &corev1.SecurityContext{
			RunAsUser:                ptr.To[int64](65532),
			RunAsGroup:               ptr.To[int64](65532),
			RunAsNonRoot:             ptr.To(true),
			ReadOnlyRootFilesystem:   ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "state", MountPath: "/run/gvisor-installer", ReadOnly: true}},
	}
}

// expectedReproveContainer is the idle container of install mode with the sandbox proof: gvisor-idle reprove running
// gvisor-installer prove at its start and every interval, Ready on its own proven file, root for the CRI socket with
// every host mount read-only, no capability, a memory limit for the proof's peak.
func expectedReproveContainer(image, binaryPath, interval string) corev1.Container {
	c := expectedIdleContainer(image)
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	c.Command = []string{
		"/gvisor-idle", "reprove", "--interval=" + interval, "--proven-file=/run/gvisor-idle/proven", "--termination-message=/dev/termination-log",
		"--", "/gvisor-installer", "prove", "--host-root=/host", "--bin-dir=" + binaryPath, "--registration-timeout=30s",
		"--termination-message=/dev/termination-log",
	}
	c.ReadinessProbe.Exec.Command = []string{"/gvisor-idle", "ready", "--ready-file=/run/gvisor-idle/proven"}
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")}
	c.SecurityContext.RunAsUser, c.SecurityContext.RunAsGroup, c.SecurityContext.RunAsNonRoot = ptr.To[int64](0), nil, ptr.To(false)
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "state", MountPath: "/run/gvisor-installer", ReadOnly: true},
		{Name: "proof", MountPath: "/run/gvisor-idle"},
		{Name: "containerd-run", MountPath: "/host/run/containerd"}, // the proof's log directory
		{Name: "bin-dir", MountPath: "/host" + binaryPath, ReadOnly: true},
		{Name: "containerd-config", MountPath: "/host/etc/containerd", ReadOnly: true},
	}
	return c
}
