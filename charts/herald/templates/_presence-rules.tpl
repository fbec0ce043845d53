{{/*
The alerting rules only the release can write: a HeraldRoleAbsent for each
role that runs pods, firing when Prometheus has no scrape target of that role
at all (its Deployment scaled to zero or deleted, its pods gone). HeraldRoleDown
in files/alerts.yaml sees targets that answer up == 0; a role with no target
has no series for it to see, and absent() must name the job, which is the
release name only where the chart's ServiceMonitor scrapes (jobLabel
app.kubernetes.io/instance, role from app.kubernetes.io/component). A role
that may scale to zero pods (KEDA's minReplicaCount 0, replicas 0) gets none.
Rendered as one rules group, appended to files/alerts.yaml's in the
PrometheusRule; test/deploy/alerts.test.ts runs promtool's unit tests of it.
*/}}
{{- define "herald.presenceRules" -}}
{{- $v := .Values }}
name: herald-presence
rules:
{{- range $role := splitList " " (include "herald.roleNames" .) }}
{{- $values := index $v $role }}
{{- $fewest := $values.replicas }}
{{- if and (eq $role "api") $v.api.autoscaling.enabled }}{{ $fewest = $v.api.autoscaling.minReplicas }}{{ end }}
{{- if and (eq $role "sender") $v.sender.keda.enabled }}{{ $fewest = $v.sender.keda.minReplicaCount }}{{ end }}
{{- if and $values.enabled (gt (int $fewest) 0) }}
  - alert: HeraldRoleAbsent
    expr: absent(up{namespace="{{ $.Release.Namespace }}", job="{{ $.Release.Name }}", role="{{ $role }}"})
    for: 3m
    labels:
      severity: critical
      # absent() gives it too; one of its own keeps the rules apart for promtool's lint.
      role: {{ $role }}
    annotations:
      summary: "No {{ $role }} process of {{ $.Release.Name }} is scraped"
      description: |-
        For 3 minutes Prometheus had no scrape target of the {{ $role }} role of {{ $.Release.Name }} in {{ $.Release.Namespace }}: no pod of it runs, or none is discovered.
        What to do: kubectl -n {{ $.Release.Namespace }} get deployment,pods -l app.kubernetes.io/instance={{ $.Release.Name }},app.kubernetes.io/component={{ $role }}:
        a Deployment scaled to zero or deleted, pods that cannot be scheduled (resources, quotas) or
        pulled (the image), and kubectl describe for the reason. Once pods run but do not answer,
        HeraldRoleDown takes over.
{{- end }}
{{- end }}
{{- end }}
