{{/* Name of the pool's DaemonSet; unique per pool in kube-system. */}}
{{- define "gvisor-installation.name" -}}
gvisor-installation-{{ .Values.workerPool }}
{{- end -}}

{{/* Labels that select the pool's installation pods (DaemonSet selector: immutable, keep it stable). */}}
{{- define "gvisor-installation.selectorLabels" -}}
app.kubernetes.io/name: gvisor-installation
app.kubernetes.io/instance: {{ .Values.workerPool }}
{{- end -}}

{{/* Marks the uninstall mode's DaemonSet and pods (not a selector label: the selector is the same in both modes). */}}
{{- define "gvisor-installation.modeLabel" -}}
gvisor.runtime.extensions.gardener.cloud/mode: uninstall
{{- end -}}

{{/*
runsc.toml: [runsc_config] and one line per flag. Go templates range over maps in sorted key order, so the same
flags always give the same bytes and the pod's checksum annotation changes only when the content does.
printf %q gives a TOML basic string for the values the allowlist lets through (v1alpha1.ValidateFlags: no quotes,
backslashes or control characters); the installer parses the file again on the node (pkg/installer/runscconfig).
*/}}
{{- define "gvisor-installation.runscToml" -}}
[runsc_config]
{{- range $flag, $value := .Values.configFlags }}
  {{ $flag }} = {{ printf "%q" $value }}
{{- end }}
{{ end -}}
