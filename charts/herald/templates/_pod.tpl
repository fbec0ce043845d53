{{/*
The pod every Herald process runs in, for a role's Deployment and for the
migration and import Jobs. Call with (dict "root" $ "role" "<role>") for a
role, or for a Job (dict "root" $ "job" true "args" (list "migrate")
"resources" <resources> "serviceAccount" "<name>"), optionally with
"configMap" "<name>" "secret" "<name>", and "extraVolumes" and "extraMounts"
(lists) for what the Job reads.

An init container writes Herald's config file, with the apps' keys from the
Secret, to a memory volume; Herald then runs as the image's non-root user on a
read-only root filesystem, writing only /data and /tmp.
*/}}
{{- define "herald.podSpec" -}}
{{- $root := .root }}
{{- $v := $root.Values }}
{{- $job := .job | default false }}
{{- $role := .role | default "" }}
{{- $servesApi := and (not $job) (eq (include "herald.servesApi" $role) "true") }}
{{- $configMap := .configMap | default (include "herald.fullname" $root) }}
{{- $secret := .secret | default (include "herald.secretName" $root) }}
{{- if .serviceAccount }}
serviceAccountName: {{ .serviceAccount }}
{{- else if not $v.serviceAccount.create }}
serviceAccountName: {{ $v.serviceAccount.name | default "default" }}
{{- else }}
serviceAccountName: {{ include "herald.serviceAccountName" $root }}
{{- end }}
automountServiceAccountToken: false
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
securityContext:
  {{- toYaml $v.podSecurityContext | nindent 2 }}
{{- if $job }}
restartPolicy: Never
{{- else }}
terminationGracePeriodSeconds: {{ (index $v $role).terminationGracePeriodSeconds }}
{{- end }}
initContainers:
  - name: config
    image: {{ include "herald.image" $root }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    command: ["node", "/etc/herald/config/assemble-config.mts"]
    env:
      - name: HERALD_CONFIG_SOURCE
        value: /etc/herald/config/herald.json
      - name: HERALD_SECRET_DIR
        value: /etc/herald/secret
      - name: HERALD_SECRET_NAME
        value: {{ $secret }}
      - name: HERALD_CONFIG
        value: /run/herald/herald.json
    securityContext:
      {{- toYaml $v.securityContext | nindent 6 }}
    resources:
      requests: { cpu: 10m, memory: 32Mi }
      limits: { memory: 128Mi }
    volumeMounts:
      - { name: config, mountPath: /etc/herald/config, readOnly: true }
      - { name: secret, mountPath: /etc/herald/secret, readOnly: true }
      - { name: run, mountPath: /run/herald }
containers:
  - name: herald
    image: {{ include "herald.image" $root }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    {{- with .args }}
    args: {{ toJson . }}
    {{- end }}
    env:
      {{- if not $job }}
      - name: HERALD_ROLE
        value: {{ $role }}
      {{- end }}
      - name: HERALD_CONFIG
        value: /run/herald/herald.json
      - name: HERALD_DATA_DIR
        value: /data
      - name: PORT
        value: {{ $v.ports.http | int | quote }}
      - name: HERALD_INTERNAL_PORT
        value: {{ $v.ports.internal | int | quote }}
      - name: HERALD_GRPC_PORT
        value: {{ if $v.ports.grpc }}{{ $v.ports.grpc | int | quote }}{{ else }}"off"{{ end }}
      {{- with include "herald.backendEnv" $root }}
      {{- . | nindent 6 }}
      {{- end }}
      {{- with $v.extraEnv }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    securityContext:
      {{- toYaml $v.securityContext | nindent 6 }}
    {{- if $job }}
    resources:
      {{- toYaml .resources | nindent 6 }}
    {{- else }}
    resources:
      {{- toYaml (index $v $role).resources | nindent 6 }}
    ports:
      {{- if $servesApi }}
      - { name: http, containerPort: {{ $v.ports.http | int }}, protocol: TCP }
      {{- if $v.ports.grpc }}
      - { name: grpc, containerPort: {{ $v.ports.grpc | int }}, protocol: TCP }
      {{- end }}
      {{- end }}
      - { name: metrics, containerPort: {{ $v.ports.internal | int }}, protocol: TCP }
    startupProbe:
      httpGet: { path: /healthz, port: metrics }
      {{- toYaml $v.probes.startup | nindent 6 }}
    livenessProbe:
      httpGet: { path: /healthz, port: metrics }
      {{- toYaml $v.probes.liveness | nindent 6 }}
    readinessProbe:
      httpGet: { path: /readyz, port: metrics }
      {{- toYaml $v.probes.readiness | nindent 6 }}
    {{- if $servesApi }}
    lifecycle:
      preStop:
        # Endpoints and load balancers drop the pod while it still serves; Herald drains after this pause.
        exec:
          command: ["node", "-e", "setTimeout(() => {}, {{ mul (int $v.preStopSleepSeconds) 1000 }})"]
    {{- end }}
    {{- end }}
    volumeMounts:
      - { name: run, mountPath: /run/herald, readOnly: true }
      - { name: secret, mountPath: /etc/herald/secret, readOnly: true }
      - { name: data, mountPath: /data }
      - { name: tmp, mountPath: /tmp }
      {{- with .extraMounts }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
volumes:
  - name: config
    configMap:
      name: {{ $configMap }}
  - name: secret
    secret:
      secretName: {{ $secret }}
      defaultMode: 288  # 0440: the owner and the fsGroup read
  - name: run
    emptyDir:
      medium: Memory
      sizeLimit: 4Mi
  - name: tmp
    emptyDir:
      sizeLimit: 256Mi
  - name: data
    {{- if and (eq $role "all") $v.persistence.enabled }}
    persistentVolumeClaim:
      claimName: {{ $v.persistence.existingClaim | default (printf "%s-data" (include "herald.fullname" $root)) }}
    {{- else }}
    emptyDir:
      sizeLimit: 1Gi
    {{- end }}
{{- with .extraVolumes }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if and (not $job) $v.topologySpread.enabled }}
topologySpreadConstraints:
  {{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
  - maxSkew: {{ $v.topologySpread.maxSkew }}
    topologyKey: {{ $key }}
    whenUnsatisfiable: {{ $v.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "herald.roleSelectorLabels" (dict "root" $root "role" $role) | nindent 8 }}
    matchLabelKeys: [pod-template-hash]
  {{- end }}
{{- end }}
{{- end }}
