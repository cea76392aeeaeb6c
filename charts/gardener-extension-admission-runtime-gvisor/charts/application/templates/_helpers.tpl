{{/* Name of every object; fixed, the runtime chart's Service carries the same name. */}}
{{- define "name" -}}
gardener-extension-admission-runtime-gvisor
{{- end -}}

{{- define "labels" -}}
app.kubernetes.io/name: {{ include "name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
The URL gardener-apiserver calls: webhook.url, or the runtime chart's Service in runtimeNamespace (gardener-apiserver
runs in the garden runtime cluster, so the Service's cluster DNS name resolves there).
*/}}
{{- define "webhookURL" -}}
{{- if .Values.webhook.url -}}
{{ .Values.webhook.url }}
{{- else -}}
https://{{ include "name" . }}.{{ .Values.runtimeNamespace }}.svc:{{ .Values.servicePort }}/webhooks/validate-shoot
{{- end -}}
{{- end -}}
