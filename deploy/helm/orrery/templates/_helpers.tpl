{{/* The chart's name, or nameOverride. */}}
{{- define "orrery.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: the release's name, with the chart's unless it holds it.
At most 50 characters, so that "<fullname>-sandbox-host" stays within a DNS label's 63.
*/}}
{{- define "orrery.fullname" -}}
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

{{/* The Secret the chart keeps the connection URLs given as values in (connections-secret.yaml). */}}
{{- define "orrery.connectionsSecret" -}}
{{- include "orrery.fullname" . }}-connections
{{- end }}

{{/* Selects one process's pods: (dict "root" $ "component" "api"). */}}
{{- define "orrery.selectorLabels" -}}
app.kubernetes.io/name: {{ include "orrery.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/* Helm's recommended labels; component "" for what every process shares. */}}
{{- define "orrery.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "orrery.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: orrery
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{- define "orrery.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "orrery.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag of an image value. */}}
{{- define "orrery.image" -}}
{{- printf "%s:%s" .repository .tag }}
{{- end }}

{{/*
A secretKeyRef to a value kept in a Secret: the one the person named (.source.existingSecret and
.source.existingSecretKey), else the chart's own (.chartSecret) under .key.
*/}}
{{- define "orrery.secretKeyRef" -}}
secretKeyRef:
  {{- if .source.existingSecret }}
  name: {{ .source.existingSecret | quote }}
  key: {{ .source.existingSecretKey | quote }}
  {{- else }}
  name: {{ .chartSecret | quote }}
  key: {{ .key | quote }}
  {{- end }}
{{- end }}

{{/* ORRERY_HOST_SECRET, which the API replicas and the sandbox hosts share. */}}
{{- define "orrery.hostSecretEnv" -}}
- name: ORRERY_HOST_SECRET
  valueFrom:
    {{- include "orrery.secretKeyRef" (dict "source" .Values.hostSecret "chartSecret" (include "orrery.fullname" .) "key" "host-secret") | nindent 4 }}
{{- end }}

{{- define "orrery.kafkaTlsDir" -}}
/etc/orrery/kafka-tls
{{- end }}

{{/*
What every process reads alike: Kafka, ClickHouse, Postgres, the registry, no local model, how
long a silent sandbox host is waited for, and the person's extraEnv last (the last of two same
names wins).
*/}}
{{- define "orrery.commonEnv" -}}
{{- $tls := .Values.kafka.tls }}
{{- $sasl := .Values.kafka.sasl }}
- name: ORRERY_KAFKA_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
{{- if $tls.enabled }}
- name: ORRERY_KAFKA_TLS
  value: "true"
{{- range $variable, $file := dict "ORRERY_KAFKA_TLS_CA" $tls.ca "ORRERY_KAFKA_TLS_CERT" $tls.clientCert "ORRERY_KAFKA_TLS_KEY" $tls.clientKey }}
{{- if $file }}
- name: {{ $variable }}
  value: {{ printf "%s/%s" (include "orrery.kafkaTlsDir" $) $file | quote }}
{{- end }}
{{- end }}
{{- if $tls.clientKeyPassword }}
- name: ORRERY_KAFKA_TLS_KEY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $tls.secretName | quote }}
      key: {{ $tls.clientKeyPassword | quote }}
{{- end }}
{{- end }}
{{- if $sasl.mechanism }}
- name: ORRERY_KAFKA_SASL_MECHANISM
  value: {{ $sasl.mechanism | quote }}
- name: ORRERY_KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $sasl.existingSecret | quote }}
      key: {{ $sasl.usernameKey | quote }}
- name: ORRERY_KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $sasl.existingSecret | quote }}
      key: {{ $sasl.passwordKey | quote }}
{{- end }}
- name: ORRERY_TOPIC_REPLICATION_FACTOR
  value: {{ .Values.kafka.topicReplicationFactor | quote }}
- name: ORRERY_CLICKHOUSE_URL
  valueFrom:
    {{- include "orrery.secretKeyRef" (dict "source" .Values.clickhouse "chartSecret" (include "orrery.connectionsSecret" .) "key" "clickhouse-url") | nindent 4 }}
- name: ORRERY_POSTGRES_URL
  valueFrom:
    {{- include "orrery.secretKeyRef" (dict "source" .Values.postgres "chartSecret" (include "orrery.connectionsSecret" .) "key" "postgres-url") | nindent 4 }}
- name: ORRERY_REGISTRY_URL
  value: {{ .Values.registry.url | quote }}
- name: ORRERY_DEFAULT_MODEL
  value: "off"
- name: ORRERY_SANDBOX_HOST_GRACE_SECONDS
  value: {{ .Values.sandboxHost.graceSeconds | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The Kafka TLS files, in every process. */}}
{{- define "orrery.kafkaTlsVolume" -}}
{{- if .Values.kafka.tls.secretName }}
- name: kafka-tls
  secret:
    secretName: {{ .Values.kafka.tls.secretName | quote }}
    # 0440, in decimal (YAML 1.1 and 1.2 read 0440 differently): readable by root and the
    # processes' group (podSecurityContext.fsGroup), not by others.
    defaultMode: 288
{{- end }}
{{- end }}

{{- define "orrery.kafkaTlsVolumeMount" -}}
{{- if .Values.kafka.tls.secretName }}
- name: kafka-tls
  mountPath: {{ include "orrery.kafkaTlsDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{/*
The pod spec's fields the API, consumers, jobs and provisioning share: (dict "root" $ "process"
.Values.api). /tmp is an emptyDir: tsx keeps its cache there, and the image's ORRERY_STACK_DIR is
under it, so a read-only root filesystem leaves them somewhere to write.
*/}}
{{- define "orrery.processPodSpec" -}}
automountServiceAccountToken: {{ .root.Values.serviceAccount.automount }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with include "orrery.scheduling" .process }}{{ . | trim | nindent 0 }}{{- end }}
volumes:
  - name: tmp
    emptyDir: {}
  {{- with include "orrery.kafkaTlsVolume" .root }}{{ . | trim | nindent 2 }}{{- end }}
{{- end }}

{{/* A process container's image, security context, resources and mounts. */}}
{{- define "orrery.processContainer" -}}
image: {{ include "orrery.image" .root.Values.image | quote }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
{{- with .root.Values.securityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .process.resources }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- with include "orrery.kafkaTlsVolumeMount" .root }}{{ . | trim | nindent 2 }}{{- end }}
{{- end }}

{{/* Where a process's pods may go. */}}
{{- define "orrery.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* HTTP probes on a named port: readiness /readyz, liveness /healthz. */}}
{{- define "orrery.probes" -}}
readinessProbe:
  httpGet:
    path: /readyz
    port: {{ . }}
  periodSeconds: 5
  failureThreshold: 3
livenessProbe:
  httpGet:
    path: /healthz
    port: {{ . }}
  initialDelaySeconds: 10
  periodSeconds: 10
  failureThreshold: 6
{{- end }}

{{/*
Refusals of values that render but cannot run: the rules between variables that
platform/kafka-settings.ts enforces at start-up, reported at install time instead.
*/}}
{{- define "orrery.checks" -}}
{{- $tls := .Values.kafka.tls }}
{{- $files := or $tls.ca $tls.clientCert $tls.clientKey $tls.clientKeyPassword }}
{{- if and $files (not $tls.enabled) }}
{{- fail "kafka.tls: ca, clientCert, clientKey and clientKeyPassword are used only with kafka.tls.enabled: true" }}
{{- end }}
{{- if and $files (not $tls.secretName) }}
{{- fail "kafka.tls: name the Secret holding the files in kafka.tls.secretName" }}
{{- end }}
{{- if ne (not $tls.clientCert) (not $tls.clientKey) }}
{{- fail "kafka.tls: a client certificate needs both clientCert and clientKey" }}
{{- end }}
{{- if and $tls.clientKeyPassword (not $tls.clientKey) }}
{{- fail "kafka.tls.clientKeyPassword is set only with kafka.tls.clientKey" }}
{{- end }}
{{- $sasl := .Values.kafka.sasl }}
{{- if and $sasl.mechanism (not $sasl.existingSecret) }}
{{- fail "kafka.sasl: name the Secret holding the username and password in kafka.sasl.existingSecret" }}
{{- end }}
{{- if and $sasl.existingSecret (not $sasl.mechanism) }}
{{- fail "kafka.sasl.existingSecret is set: choose kafka.sasl.mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)" }}
{{- end }}
{{- range $part := list "clickhouse" "postgres" }}
{{- $connection := index $.Values $part }}
{{- if not (or $connection.url $connection.existingSecret) }}
{{- fail (printf "%s: give %s.url, or %s.existingSecret naming the Secret that holds it" $part $part $part) }}
{{- end }}
{{- end }}
{{- with .Values.api.autoscaling }}
{{- if and .enabled (gt (int .minReplicas) (int .maxReplicas)) }}
{{- fail "api.autoscaling: minReplicas is more than maxReplicas" }}
{{- end }}
{{- end }}
{{- end }}
