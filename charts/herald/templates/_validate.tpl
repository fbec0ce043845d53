{{/*
Checks across values that values.schema.json cannot express. Each refuses at
install, naming the values, what Herald itself would refuse at start
(src/runtime/deployment-checks.ts) or what would break with more than one pod.
*/}}
{{- define "herald.validate" -}}
{{- $v := .Values }}
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
{{- $ports := list (int $v.ports.http) (int $v.ports.internal) }}
{{- if $v.ports.grpc }}{{ $ports = append $ports (int $v.ports.grpc) }}{{ end }}
{{- if ne (len $ports) (len (uniq $ports)) }}
{{- fail (printf "ports: http, grpc and internal must differ, got %v" $ports) }}
{{- end }}
{{- end }}
