{{/*
Checks across values that values.schema.json cannot express. Each refuses at
install, naming the values, what Herald itself would refuse at start
(src/runtime/deployment-checks.ts) or what would break with more than one pod.
*/}}
{{- define "herald.validate" -}}
{{- $v := .Values }}
{{- if not $v.image.repository }}
{{- fail (include "herald.imageRequired" .) }}
{{- end }}
{{- $cassandra := include "herald.cassandra" . }}
{{- $kafka := include "herald.kafka" . }}
{{- $redis := include "herald.redis" . }}
{{- $shared := include "herald.shared" . }}
{{- $enabled := list }}
{{- range $role := splitList " " (include "herald.roleNames" .) }}
{{- if (index $v $role).enabled }}{{ $enabled = append $enabled $role }}{{ end }}
{{- end }}
{{- if not $enabled }}
{{- fail "no role is enabled: enable all (one pod with every role) or api, fanout, sender and scheduler" }}
{{- end }}
{{- range $role := list "api" "fanout" "sender" "scheduler" }}
{{- if (index $v $role).enabled }}
{{- if not $cassandra }}
{{- fail (printf "%s.enabled: a role in pods of its own needs Cassandra (cassandra.contactPoints): the embedded store belongs to one pod" $role) }}
{{- end }}
{{- if not $kafka }}
{{- fail (printf "%s.enabled: a role in pods of its own needs Kafka (kafka.brokers): the in-process bus cannot reach the other roles" $role) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $shared (not $redis) }}
{{- fail "redis.url (or redis.urlKey) is required beside Cassandra or Kafka: in-memory coordination would not share login locks, limits, flow control or the scheduler lease" }}
{{- end }}
{{- if and $shared (not $v.apps) }}
{{- fail "apps: configure at least one app (its keys in the Secret) on Cassandra, Kafka or Redis: every pod would make development keys of its own" }}
{{- end }}
{{- if not $v.secret.existingSecret }}
{{- range $index, $app := $v.apps }}
{{- range $entry := list "key" "masterKey" }}
{{- if not (hasKey ($v.secret.stringData | default dict) (printf "app.%s.%s" $app.id $entry)) }}
{{- fail (printf "secret.stringData: app %s needs its %s as app.%s.%s (or give secret.existingSecret)" $app.id $entry $app.id $entry) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $v.all.enabled (not $cassandra) (gt (int $v.all.replicas) 1) }}
{{- fail "all.replicas: at most 1 on the embedded store (cassandra.contactPoints empty): the store lives in the pod" }}
{{- end }}
{{- if and $v.persistence.enabled (gt (int $v.all.replicas) 1) }}
{{- fail "persistence.enabled: the claim for /data is for one `all` pod; with all.replicas above 1 leave it off" }}
{{- end }}
{{- range $role := $enabled }}
{{- $grace := int (index $v $role).terminationGracePeriodSeconds }}
{{- $needed := include "herald.shutdownSeconds" (dict "root" $ "role" $role) | int }}
{{- if le $grace $needed }}
{{- fail (printf "%s.terminationGracePeriodSeconds: %d is too short; the preStop pause and the %s drain take up to %ds, so give more than that" $role $grace $role $needed) }}
{{- end }}
{{- end }}
{{- with $v.api.autoscaling }}
{{- if .enabled }}
{{- if not $v.api.enabled }}
{{- fail "api.autoscaling.enabled: needs api.enabled" }}
{{- end }}
{{- if not (dig "requests" "cpu" "" ($v.api.resources | default dict)) }}
{{- fail "api.autoscaling.enabled: set api.resources.requests.cpu, the base of the CPU target" }}
{{- end }}
{{- if gt (int .minReplicas) (int .maxReplicas) }}
{{- fail "api.autoscaling.minReplicas: must not exceed api.autoscaling.maxReplicas" }}
{{- end }}
{{- end }}
{{- end }}
{{- with $v.sender.keda }}
{{- if .enabled }}
{{- if not $v.sender.enabled }}
{{- fail "sender.keda.enabled: needs sender.enabled" }}
{{- end }}
{{- if gt (int .minReplicaCount) (int .maxReplicaCount) }}
{{- fail "sender.keda.minReplicaCount: must not exceed sender.keda.maxReplicaCount" }}
{{- end }}
{{- if gt (int .maxReplicaCount) (int $v.kafka.partitions.pushTasks) }}
{{- fail (printf "sender.keda.maxReplicaCount: %d senders for %d partitions of push.tasks (kafka.partitions.pushTasks); a sender beyond the partitions idles" (int .maxReplicaCount) (int $v.kafka.partitions.pushTasks)) }}
{{- end }}
{{- end }}
{{- end }}
{{- include "herald.validateBackendSecurity" . }}
{{- $ports := list (int $v.ports.http) (int $v.ports.internal) }}
{{- if $v.ports.grpc }}{{ $ports = append $ports (int $v.ports.grpc) }}{{ end }}
{{- if ne (len $ports) (len (uniq $ports)) }}
{{- fail (printf "ports: http, grpc and internal must differ, got %v" $ports) }}
{{- end }}
{{- end }}

{{/*
The backends' TLS and credentials values: what Herald would refuse at start
(src/config/backends-schema.ts), and Secret entries the chart's own Secret
lacks (an existing Secret is the operator's to fill).
*/}}
{{- define "herald.validateBackendSecurity" -}}
{{- $v := .Values }}
{{- range $backend := list "cassandra" "kafka" }}
{{- $tls := (index $v $backend).tls | default dict }}
{{- if and (not $tls.enabled) (or $tls.caKey $tls.certKey $tls.keyKey $tls.serverName) }}
{{- fail (printf "%s.tls.enabled: false, but %s.tls names files or a server name; turn TLS on or clear them" $backend $backend) }}
{{- end }}
{{- end }}
{{- range $backend := list "cassandra" "kafka" "redis" }}
{{- $tls := (index $v $backend).tls | default dict }}
{{- if ne (empty $tls.certKey) (empty $tls.keyKey) }}
{{- fail (printf "%s.tls: a client certificate needs both certKey and keyKey" $backend) }}
{{- end }}
{{- end }}
{{- $sasl := $v.kafka.sasl | default dict }}
{{- if $sasl.mechanism }}
{{- if not $sasl.username }}
{{- fail "kafka.sasl.username: required with kafka.sasl.mechanism" }}
{{- end }}
{{- if not $sasl.passwordKey }}
{{- fail "kafka.sasl.passwordKey: required with kafka.sasl.mechanism (the Secret entry that holds the password)" }}
{{- end }}
{{- else if or $sasl.username $sasl.passwordKey }}
{{- fail "kafka.sasl.mechanism: set plain, scram-sha-256 or scram-sha-512 beside kafka.sasl.username and kafka.sasl.passwordKey" }}
{{- end }}
{{- $redisTls := $v.redis.tls | default dict }}
{{- if and (or $redisTls.caKey $redisTls.certKey $redisTls.serverName) $v.redis.url (not (hasPrefix "rediss://" $v.redis.url)) }}
{{- fail (printf "redis.tls: TLS settings need a rediss:// URL, and redis.url is %s" $v.redis.url) }}
{{- end }}
{{- if not $v.secret.existingSecret }}
{{- $entries := merge (dict) ($v.secret.stringData | default dict) ($v.secret.data | default dict) }}
{{- $named := dict }}
{{- if include "herald.cassandra" . }}
{{- $_ := set $named "cassandra.passwordKey" $v.cassandra.passwordKey }}
{{- range $file := list "caKey" "certKey" "keyKey" }}{{ $_ := set $named (printf "cassandra.tls.%s" $file) (get ($v.cassandra.tls | default dict) $file) }}{{ end }}
{{- end }}
{{- if include "herald.kafka" . }}
{{- $_ := set $named "kafka.sasl.passwordKey" $sasl.passwordKey }}
{{- range $file := list "caKey" "certKey" "keyKey" }}{{ $_ := set $named (printf "kafka.tls.%s" $file) (get ($v.kafka.tls | default dict) $file) }}{{ end }}
{{- end }}
{{- if include "herald.redis" . }}
{{- $_ := set $named "redis.urlKey" $v.redis.urlKey }}
{{- $_ := set $named "redis.passwordKey" $v.redis.passwordKey }}
{{- range $file := list "caKey" "certKey" "keyKey" }}{{ $_ := set $named (printf "redis.tls.%s" $file) (get $redisTls $file) }}{{ end }}
{{- end }}
{{- range $value, $key := $named }}
{{- if and $key (not (hasKey $entries $key)) }}
{{- fail (printf "secret.stringData: %s names the entry %s, which the chart's Secret does not hold (add it, or give secret.existingSecret)" $value $key) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
