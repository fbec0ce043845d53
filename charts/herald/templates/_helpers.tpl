{{/* Names, labels and the facts every template shares. */}}

{{- define "herald.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* `<release>-<chart>`, or the release alone when it already holds the chart name; room is left for a role suffix. */}}
{{- define "herald.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "herald.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "herald.selectorLabels" -}}
app.kubernetes.io/name: {{ include "herald.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "herald.labels" -}}
helm.sh/chart: {{ include "herald.chart" . }}
{{ include "herald.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: herald
{{- end }}

{{/* Selector labels of one role's pods; call with (dict "root" $ "role" "api"). */}}
{{- define "herald.roleSelectorLabels" -}}
{{ include "herald.selectorLabels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{/* The roles the chart knows, in Herald's start order, `all` last. */}}
{{- define "herald.roleNames" -}}
sender fanout api scheduler all
{{- end }}

{{/* The roles that run an HTTP and gRPC API. */}}
{{- define "herald.servesApi" -}}
{{- if or (eq . "api") (eq . "all") }}true{{ end }}
{{- end }}

{{- define "herald.image" -}}
{{- $repository := required (include "herald.imageRequired" .) .Values.image.repository }}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* What an install without image.repository says: no public registry serves Herald's image. */}}
{{- define "herald.imageRequired" -}}
image.repository is required: no public registry serves Herald's image. Build it from the repository (docker build -t herald:{{ .Chart.AppVersion }} .), then either push it to your registry and set image.repository=<registry>/herald, or load it into kind (kind load docker-image herald:{{ .Chart.AppVersion }}) or minikube (minikube image load herald:{{ .Chart.AppVersion }}) and set image.repository=herald
{{- end }}

{{- define "herald.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "herald.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The migration Job's ServiceAccount: its own (a hook made just before it), or
the one named, or the pods' (a pre-install hook runs before the chart's own
ServiceAccount exists, so only a named one or the namespace's default).
*/}}
{{- define "herald.migrationServiceAccountName" -}}
{{- if .Values.migration.serviceAccount.create }}
{{- .Values.migration.serviceAccount.name | default (printf "%s-migration" (include "herald.fullname" .)) }}
{{- else }}
{{- .Values.migration.serviceAccount.name | default .Values.serviceAccount.name | default "default" }}
{{- end }}
{{- end }}

{{/* The Secret the pods read: the existing one, or the chart's. */}}
{{- define "herald.secretName" -}}
{{- .Values.secret.existingSecret | default (include "herald.fullname" .) }}
{{- end }}

{{/* Whether Herald runs on the shared backends (any of Cassandra, Kafka, Redis), as src/runtime/deployment-checks.ts decides. */}}
{{- define "herald.cassandra" -}}
{{- if .Values.cassandra.contactPoints }}true{{ end }}
{{- end }}
{{- define "herald.kafka" -}}
{{- if .Values.kafka.brokers }}true{{ end }}
{{- end }}
{{- define "herald.redis" -}}
{{- if or .Values.redis.url .Values.redis.urlKey }}true{{ end }}
{{- end }}
{{- define "herald.shared" -}}
{{- if or (include "herald.cassandra" .) (include "herald.kafka" .) (include "herald.redis" .) }}true{{ end }}
{{- end }}

{{/*
Whether an optional monitoring object renders: `true`, `false`, or `auto`
(when the cluster serves the API, e.g. monitoring.coreos.com/v1/ServiceMonitor).
Call with (dict "root" $ "enabled" <value> "api" "<group/version/Kind>").
*/}}
{{- define "herald.monitoringEnabled" -}}
{{- if eq (toString .enabled) "true" }}true
{{- else if and (eq (toString .enabled) "auto") (.root.Capabilities.APIVersions.Has .api) }}true
{{- end }}
{{- end }}

{{/*
Seconds a role may take to drain after SIGTERM: a sender (and `all`) waits
for the gateway requests in hand, cut at push.gateways.requestTimeoutMs; every
role then commits, leaves its consumer group and closes its clients, which
15 s covers with room to spare.
*/}}
{{- define "herald.drainSeconds" -}}
{{- $gateways := dig "push" "gateways" (dict) .root.Values.config }}
{{- $requestTimeoutMs := dig "requestTimeoutMs" 10000 $gateways | int }}
{{- if or (eq .role "sender") (eq .role "all") }}
{{- add 15 (div (add $requestTimeoutMs 999) 1000) }}
{{- else }}
{{- 15 }}
{{- end }}
{{- end }}

{{/* Seconds from the pod's deletion to the end of its drain: the preStop pause (pods that serve the API) and the drain. */}}
{{- define "herald.shutdownSeconds" -}}
{{- $pause := ternary (int .root.Values.preStopSleepSeconds) 0 (eq (include "herald.servesApi" .role) "true") }}
{{- add $pause (include "herald.drainSeconds" . | int) }}
{{- end }}

{{/* Whether the senders' KEDA trigger needs Kafka credentials from the Secret: a SASL password, or TLS files. */}}
{{- define "herald.kedaKafkaAuth" -}}
{{- $tls := .Values.kafka.tls }}
{{- if or .Values.kafka.sasl.mechanism (and $tls.enabled (or $tls.caKey $tls.certKey)) }}true{{ end }}
{{- end }}
