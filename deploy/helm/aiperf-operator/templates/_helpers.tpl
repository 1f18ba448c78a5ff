{{/* The labels of every object: `aiperf kube install --name RELEASE`'s. */}}
{{- define "aiperf-operator.labels" -}}
app.kubernetes.io/component: operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/name: aiperf
{{- end }}
