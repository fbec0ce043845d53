{{/*
Herald's config file before its secrets: `config` with `apps`. The init
container (files/assemble-config.mts) adds each app's keys from the Secret and
writes the file HERALD_CONFIG names. Backends and ports come as environment
variables, which Herald reads over the file.
*/}}
{{- define "herald.configJson" -}}
{{- $config := deepCopy (.Values.config | default dict) }}
{{- $_ := set $config "apps" (.Values.apps | default list) }}
{{- toPrettyJson $config }}
{{- end }}

{{/* The ConfigMap's data, also hashed into the pods' checksum annotation. */}}
{{- define "herald.configMapData" -}}
herald.json: |
{{- include "herald.configJson" . | nindent 2 }}
assemble-config.mts: |
{{- .Files.Get "files/assemble-config.mts" | nindent 2 }}
{{- end }}

{{/* The chart-made Secret's entries (empty with existingSecret), also hashed into the pods' checksum annotation. */}}
{{- define "herald.secretData" -}}
{{- with .Values.secret.stringData }}
stringData:
  {{- range $key, $value := . }}
  {{ $key | quote }}: {{ $value | toString | quote }}
  {{- end }}
{{- end }}
{{- with .Values.secret.data }}
data:
  {{- range $key, $value := . }}
  {{ $key | quote }}: {{ $value | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
The value that changes when the pods' secrets change: the chart's entries, or
with existingSecret the Secret as the cluster holds it at install or upgrade
(`lookup`; nothing under `helm template`), so that the next upgrade after a
change of that Secret rolls the pods.
*/}}
{{- define "herald.secretChecksum" -}}
{{- if .Values.secret.existingSecret }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace .Values.secret.existingSecret | default dict }}
{{- get $existing "data" | default dict | toJson | sha256sum }}
{{- else }}
{{- include "herald.secretData" . | sha256sum }}
{{- end }}
{{- end }}

{{/* Environment variables for the backends: Cassandra, Kafka, Redis (see the README's table of variables). */}}
{{- define "herald.backendEnv" -}}
{{- $v := .Values }}
{{- $secret := include "herald.secretName" . }}
{{- if include "herald.cassandra" . }}
- name: HERALD_STORE
  value: cassandra
- name: HERALD_CASSANDRA_CONTACT_POINTS
  value: {{ join "," $v.cassandra.contactPoints | quote }}
- name: HERALD_CASSANDRA_LOCAL_DC
  value: {{ $v.cassandra.localDataCenter | quote }}
- name: HERALD_CASSANDRA_KEYSPACE
  value: {{ $v.cassandra.keyspace | quote }}
- name: HERALD_CASSANDRA_REPLICATION
  value: {{ $v.cassandra.replication | toString | quote }}
{{- with $v.cassandra.username }}
- name: HERALD_CASSANDRA_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $v.cassandra.passwordKey }}
- name: HERALD_CASSANDRA_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ . }}
{{- end }}
{{- end }}
{{- if include "herald.kafka" . }}
- name: HERALD_BUS
  value: kafka
- name: HERALD_KAFKA_BROKERS
  value: {{ join "," $v.kafka.brokers | quote }}
{{- with $v.kafka.topicPrefix }}
- name: HERALD_KAFKA_TOPIC_PREFIX
  value: {{ . | quote }}
{{- end }}
- name: HERALD_KAFKA_SESSION_TIMEOUT_MS
  value: {{ $v.kafka.sessionTimeoutMs | int | quote }}
- name: HERALD_PUSH_REQUEST_PARTITIONS
  value: {{ $v.kafka.partitions.pushRequests | int | quote }}
- name: HERALD_PUSH_TASK_PARTITIONS
  value: {{ $v.kafka.partitions.pushTasks | int | quote }}
{{- end }}
{{- if include "herald.redis" . }}
- name: HERALD_COORDINATION
  value: redis
- name: HERALD_REDIS_URL
{{- if $v.redis.urlKey }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $v.redis.urlKey }}
{{- else }}
  value: {{ $v.redis.url | quote }}
{{- end }}
{{- end }}
{{- end }}
