{{/*
Name of every namespaced object. Fixed (not derived from the release name) because Gardener names the
release after the ControllerRegistration, while the controller, dashboards and docs expect this name.
*/}}
{{- define "name" -}}
gardener-extension-runtime-gvisor
{{- end -}}

{{/*
Name of the cluster-scoped RBAC objects: it carries the release namespace so that two installations
(e.g. a test release beside the Gardener-managed one) never fight over one ClusterRole.
*/}}
{{- define "clusterName" -}}
{{ include "name" . }}:{{ .Release.Namespace }}
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

{{/*
The image vector overwrite as the text of images_overwrite.yaml: Gardener's convention is a YAML string, kept byte
for byte; a map (a values file or --set-json) is rendered as YAML. Empty when unset.
*/}}
{{- define "imageVectorOverwrite" -}}
{{- $v := .Values.imageVectorOverwrite -}}
{{- if kindIs "string" $v -}}
{{ $v }}
{{- else if $v -}}
{{ toYaml $v }}{{ "\n" }}
{{- end -}}
{{- end -}}
