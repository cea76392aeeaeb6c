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
{{- $flags := .Values.configFlags -}}
{{- if .Values.sandboxMetrics -}}
{{- /* A fresh dict first: merge writes into its first argument, and the extension's flag wins over any. */ -}}
{{- $flags = merge (dict "metric-server" (include "gvisor-installation.metricServerAddress" .)) $flags -}}
{{- end -}}
[runsc_config]
{{- range $flag, $value := $flags }}
  {{ $flag }} = {{ printf "%q" $value }}
{{- end }}
{{ end -}}


{{/*
The value of runsc's metric-server flag with sandbox metrics on: in runsc.toml (so runsc create records it in every
new sandbox's state) and the metric server's --metric-server (it serves exactly the sandboxes that recorded it).
A fixed node path, not the server's listen address: the sandbox never connects to it, and it stays the same across
the server's restarts and pod IP changes, so sandboxes created earlier are served again by the next server.
Keep equal to render.MetricServerAddress.
*/}}
{{- define "gvisor-installation.metricServerAddress" -}}
/run/gvisor-metric-server.sock
{{- end -}}

{{/* The metric server's TCP port in the pod (named container port "metrics"; keep equal to render.MetricServerPort). */}}
{{- define "gvisor-installation.metricServerPort" -}}
9474
{{- end -}}
