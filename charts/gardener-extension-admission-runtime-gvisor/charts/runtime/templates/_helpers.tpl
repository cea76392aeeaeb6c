{{/* Name of every object; fixed, the runtime chart's Service carries the same name. */}}
{{- define "name" -}}
gardener-extension-admission-runtime-gvisor
{{- end -}}

{{/* Selector labels: stable for the lifetime of the Deployment (selectors are immutable). */}}
{{- define "selectorLabels" -}}
app.kubernetes.io/name: {{ include "name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "labels" -}}
{{ include "selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
Image reference. The tag defaults to the chart's appVersion, which always names a release; the schema
rejects development tags, so this can never render a tag that no registry has. The chart's own release image is
pulled by the digest the release step wrote into Chart.yaml (annotation runtime-gvisor.gardener.cloud/image-digest): moving
the tag in the registry changes nothing. image.digest pins an image of the operator's; an image.tag of theirs
without it is pulled by that tag.
*/}}
{{- define "image" -}}
{{- $digest := .Values.image.digest -}}
{{- if and (not .Values.image.tag) (not $digest) -}}
{{- $digest = index (.Chart.Annotations | default dict) "runtime-gvisor.gardener.cloud/image-digest" | default "" -}}
{{- end -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{ with $digest }}@{{ . }}{{ end }}
{{- end -}}

{{- define "priorityClassName" -}}
{{- if .Values.priorityClassName -}}
{{ .Values.priorityClassName }}
{{- else if and .Values.gardener.runtimeCluster .Values.gardener.runtimeCluster.priorityClassName -}}
{{ .Values.gardener.runtimeCluster.priorityClassName }}
{{- end -}}
{{- end -}}

{{/*
The serving certificate Secret's data: tls.crt/tls.key from the values, else the existing Secret's (so helm upgrade
keeps the certificate and the CA the application chart trusts), else a new CA and certificate for the Service's
DNS names.
*/}}
{{- define "tlsData" -}}
{{- if or .Values.tls.crt .Values.tls.key -}}
{{- if not (and .Values.tls.crt .Values.tls.key) -}}
{{- fail "tls.crt and tls.key must be set together (or both left empty to generate a certificate)" -}}
{{- end -}}
tls.crt: {{ .Values.tls.crt | b64enc }}
tls.key: {{ .Values.tls.key | b64enc }}
{{- if .Values.tls.caBundle }}
ca.crt: {{ .Values.tls.caBundle | b64enc }}
{{- end }}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-tls" (include "name" .)) -}}
{{- if and $existing $existing.data (index $existing.data "tls.crt") -}}
tls.crt: {{ index $existing.data "tls.crt" }}
tls.key: {{ index $existing.data "tls.key" }}
ca.crt: {{ index $existing.data "ca.crt" }}
{{- else -}}
{{- $svc := include "name" . -}}
{{- $ca := genCA (printf "%s-ca" $svc) 3650 -}}
{{- $cert := genSignedCert $svc nil (list $svc (printf "%s.%s" $svc .Release.Namespace) (printf "%s.%s.svc" $svc .Release.Namespace) (printf "%s.%s.svc.cluster.local" $svc .Release.Namespace)) 3650 $ca -}}
tls.crt: {{ $cert.Cert | b64enc }}
tls.key: {{ $cert.Key | b64enc }}
ca.crt: {{ $ca.Cert | b64enc }}
{{- end -}}
{{- end -}}
{{- end -}}
