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
The metric server's --metric-server: the value of runsc's metric-server flag that the pool's runsc.toml carries with
sandbox metrics on (runscconfig.MetricServerAddress, which owns it and says why; a test holds the two equal).
*/}}
{{- define "gvisor-installation.metricServerAddress" -}}
/run/gvisor-metric-server.sock
{{- end -}}

{{/* The metric collector's socket and its directory, the emptyDir it shares with the front (render.MetricCollectorSocket, MetricCollectorDir). */}}
{{- define "gvisor-installation.metricCollectorDir" -}}
/run/gvisor-metrics
{{- end -}}
{{- define "gvisor-installation.metricCollectorSocket" -}}
{{ include "gvisor-installation.metricCollectorDir" . }}/collector.sock
{{- end -}}

{{/* The user and group of the metric server's front (render.MetricFrontUser). */}}
{{- define "gvisor-installation.metricFrontUser" -}}
65532
{{- end -}}

{{/* The metric server's TCP port in the pod (named container port "metrics"; keep equal to render.MetricServerPort). */}}
{{- define "gvisor-installation.metricServerPort" -}}
9474
{{- end -}}
