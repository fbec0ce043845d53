{{/*
Herald's config file before its secrets: `config` with `apps` and `console`.
The init container (files/assemble-config.mts) adds each app's keys and each
console account's password hash from the Secret (and the accounts file of
`console.accountsKey`) and writes the file HERALD_CONFIG names. Backends and
ports come as environment variables, which Herald reads over the file.
*/}}
{{- define "herald.configJson" -}}
{{- $config := deepCopy (.Values.config | default dict) }}
{{- $_ := set $config "apps" (.Values.apps | default list) }}
{{- $console := deepCopy (get $config "console" | default dict) }}
{{- with .Values.console }}
{{- $_ := set $console "enabled" .enabled }}
{{- $_ := set $console "trustProxy" .trustProxy }}
{{- $_ := set $console "accounts" (.accounts | default list) }}
{{- with .accountsKey }}
{{- $_ := set $console "accountsKey" . }}
{{- end }}
{{- end }}
{{- $_ := set $config "console" $console }}
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
with existingSecret the operator's `secret.checksum` with the Secret as the
cluster holds it at install or upgrade (`lookup`, which finds nothing under
`helm template`, as GitOps tools render), so that a change of either rolls
the pods.
*/}}
{{- define "herald.secretChecksum" -}}
{{- if .Values.secret.existingSecret }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace .Values.secret.existingSecret | default dict }}
{{- printf "%s\n%s" .Values.secret.checksum (get $existing "data" | default dict | toJson) | sha256sum }}
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
- name: HERALD_CASSANDRA_READ_CONSISTENCY
  value: {{ $v.cassandra.consistency.read | quote }}
- name: HERALD_CASSANDRA_WRITE_CONSISTENCY
  value: {{ $v.cassandra.consistency.write | quote }}
- name: HERALD_CASSANDRA_SERIAL_CONSISTENCY
  value: {{ $v.cassandra.consistency.serial | quote }}
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
{{- include "herald.tlsEnv" (dict "prefix" "HERALD_CASSANDRA_TLS" "tls" $v.cassandra.tls) }}
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
{{- with $v.kafka.replicationFactor }}
- name: HERALD_KAFKA_REPLICATION_FACTOR
  value: {{ . | int | quote }}
{{- end }}
{{- with $v.kafka.minInsyncReplicas }}
- name: HERALD_KAFKA_MIN_INSYNC_REPLICAS
  value: {{ . | int | quote }}
{{- end }}
- name: HERALD_KAFKA_IDEMPOTENT_PRODUCER
  value: {{ $v.kafka.idempotentProducer | toString | quote }}
- name: HERALD_KAFKA_MAX_IN_FLIGHT_REQUESTS
  value: {{ $v.kafka.maxInFlightRequests | int | quote }}
- name: HERALD_PUSH_REQUEST_PARTITIONS
  value: {{ $v.kafka.partitions.pushRequests | int | quote }}
- name: HERALD_PUSH_TASK_PARTITIONS
  value: {{ $v.kafka.partitions.pushTasks | int | quote }}
{{- include "herald.tlsEnv" (dict "prefix" "HERALD_KAFKA_TLS" "tls" $v.kafka.tls) }}
{{- with $v.kafka.sasl.mechanism }}
- name: HERALD_KAFKA_SASL_MECHANISM
  value: {{ . | quote }}
- name: HERALD_KAFKA_SASL_USERNAME
  value: {{ $v.kafka.sasl.username | quote }}
- name: HERALD_KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $v.kafka.sasl.passwordKey }}
{{- end }}
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
{{- with $v.redis.username }}
- name: HERALD_REDIS_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $v.redis.passwordKey }}
- name: HERALD_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ . }}
{{- end }}
{{- /* TLS itself comes with a rediss:// URL. */}}
{{- include "herald.tlsEnv" (dict "prefix" "HERALD_REDIS_TLS" "tls" (merge (dict "enabled" false) $v.redis.tls)) }}
{{- end }}
{{- end }}

{{/*
A backend's TLS variables: the switch (when the backend has one) and, for each
file, its path in the mounted Secret (/etc/herald/secret/<key>). Call with
(dict "prefix" "HERALD_KAFKA_TLS" "tls" .Values.kafka.tls).
*/}}
{{- define "herald.tlsEnv" -}}
{{- $tls := .tls | default dict }}
{{- if $tls.enabled }}
- name: {{ .prefix }}
  value: "true"
{{- end }}
{{- range $setting, $variable := dict "caKey" "CA_FILE" "certKey" "CERT_FILE" "keyKey" "KEY_FILE" }}
{{- with get $tls $setting }}
- name: {{ printf "%s_%s" $.prefix $variable }}
  value: {{ printf "/etc/herald/secret/%s" . | quote }}
{{- end }}
{{- end }}
{{- with $tls.serverName }}
- name: {{ printf "%s_SERVER_NAME" $.prefix }}
  value: {{ . | quote }}
{{- end }}
{{- end }}
