package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CRDs returns the CustomResourceDefinitions of AIPerfJob and AIPerfSweep
// (apiextensions.k8s.io/v1, structural schemas, status subresource), in
// the order to apply them. The spec schema types the keys this package
// reads and preserves the rest: it is AIPerf's config envelope, which the
// controller pod's own `aiperf profile --config` validates in full (and
// `aiperf kube validate` before submitting).
func CRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{
		crd(KindAIPerfJob, PluralAIPerfJob, "aiperfjob", []string{"apj"}, jobSpecSchema(false), jobStatusSchema(), jobColumns()),
		crd(KindAIPerfSweep, PluralAIPerfSweep, "aiperfsweep", []string{"aps"}, jobSpecSchema(true), sweepStatusSchema(), sweepColumns()),
	}
}

func crd(kind, plural, singular string, short []string, spec, status apiextensionsv1.JSONSchemaProps, cols []apiextensionsv1.CustomResourceColumnDefinition) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + Group,
			Labels: map[string]string{"app.kubernetes.io/name": "aiperf", "app.kubernetes.io/component": "operator"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: kind, ListKind: kind + "List", Plural: plural, Singular: singular,
				ShortNames: short, Categories: []string{"aiperf"},
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:     "object",
					Required: []string{"spec"},
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"apiVersion": {Type: "string"},
						"kind":       {Type: "string"},
						"metadata":   {Type: "object"},
						"spec":       spec,
						"status":     status,
					},
				}},
				AdditionalPrinterColumns: cols,
			}},
		},
	}
}

func str(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
}

func integer(desc string, min float64) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32", Description: desc, Minimum: &min}
}

func anyObject(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "object", Description: desc, XPreserveUnknownFields: ptr(true)}
}

func timestamp(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "string", Format: "date-time", Description: desc}
}

func stringMap() apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
		Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}
}

func enum(desc string, values ...string) apiextensionsv1.JSONSchemaProps {
	s := str(desc)
	for _, v := range values {
		s.Enum = append(s.Enum, apiextensionsv1.JSON{Raw: []byte(`"` + v + `"`)})
	}
	return s
}

func jobSpecSchema(sweep bool) apiextensionsv1.JSONSchemaProps {
	zero := 0.0
	s := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Description: "The AIPerf config envelope (benchmark and its sibling keys: model, dataset, variables, " +
			"random_seed, multi_run, ...) and the deployment options. Keys not listed are kept.",
		XPreserveUnknownFields: ptr(true),
		Required:               []string{"benchmark"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"benchmark":               anyObject("The benchmark config body (config v2)."),
			"cancel":                  {Type: "boolean", Description: "Set to true to cancel the run; phase becomes Cancelled."},
			"image":                   str("The aiperf container image."),
			"imagePullPolicy":         enum("Image pull policy.", "Always", "Never", "IfNotPresent"),
			"totalWorkers":            integer("Number of load-worker pods (default 1).", 1),
			"timeoutSeconds":          {Type: "number", Minimum: &zero, Description: "Run timeout in seconds (0: none)."},
			"ttlSecondsAfterFinished": integer("Remove the Jobs this long after they finish.", 0),
			"apiKeySecret":            secretKeyRef("The Secret key holding the endpoint's API key (the key never appears in this resource)."),
			"headerSecrets": {Type: "array", Description: "Request headers whose values are read from Secret keys.",
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: ptr(headerSecret())}},
			"profileArgs": {Type: "array", Description: "aiperf profile arguments for the controller pod (after the config file; with benchmark: {} the whole benchmark).",
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		},
	}
	if sweep {
		s.Required = append(s.Required, "sweep")
		s.Properties["sweep"] = anyObject("The sweep block (grid or scenarios): one child AIPerfJob per variation.")
		s.Properties["childMetadata"] = apiextensionsv1.JSONSchemaProps{Type: "object",
			Description: "Labels and annotations stamped onto every child AIPerfJob.",
			Properties:  map[string]apiextensionsv1.JSONSchemaProps{"labels": stringMap(), "annotations": stringMap()}}
	}
	return s
}

func secretKeyRef(desc string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "object", Description: desc, Required: []string{"name", "key"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str("Secret name, in the job's namespace."), "key": str("Key in the Secret.")}}
}

func headerSecret() apiextensionsv1.JSONSchemaProps {
	s := secretKeyRef("A header whose value is a Secret's key.")
	s.Required = append(s.Required, "header")
	s.Properties["header"] = str("The header's name.")
	return s
}

func conditionsSchema() apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{
		Type: "array", Description: "Conditions (Kubernetes convention: type, status, reason, message, lastTransitionTime).",
		XListType: ptr("map"), XListMapKeys: []string{"type"},
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Required: []string{"type", "status", "reason", "lastTransitionTime"},
			Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"type":               str("Condition type."),
				"status":             enum("True, False or Unknown.", "True", "False", "Unknown"),
				"reason":             str("CamelCase reason."),
				"message":            str("Human-readable details."),
				"lastTransitionTime": timestamp("When status last changed."),
				"observedGeneration": {Type: "integer", Format: "int64"},
			},
		}},
	}
}

func phaseSchema() apiextensionsv1.JSONSchemaProps {
	return enum("Lifecycle phase.", string(PhasePending), string(PhaseQueued), string(PhaseInitializing),
		string(PhaseRunning), string(PhaseCompleted), string(PhaseFailed), string(PhaseCancelled))
}

// statusSchema is the Lifecycle's properties plus the kind's own.
func statusSchema(own map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	own["phase"] = phaseSchema()
	own["observedGeneration"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	own["conditions"] = conditionsSchema()
	own["startTime"] = timestamp("When the run's objects were created.")
	own["completionTime"] = timestamp("When the run reached a terminal phase.")
	return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: own}
}

func jobStatusSchema() apiextensionsv1.JSONSchemaProps { return statusSchema(runProps()) }

// runProps are the status fields of the run an AIPerfJob (or, here, an
// AIPerfSweep) has.
func runProps() map[string]apiextensionsv1.JSONSchemaProps {
	count := func() apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32"}
	}
	count64 := func() apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	}
	return map[string]apiextensionsv1.JSONSchemaProps{
		"jobId":         str("The run's identity (the resource's UID)."),
		"controllerJob": str("The controller batch/v1 Job."),
		"workersJob":    str("The load workers' Indexed batch/v1 Job."),
		"workers": {Type: "object", Required: []string{"ready", "total"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"ready": count(), "total": count(), "connected": count(), "active": count(), "succeeded": count(), "failed": count()}},
		"progress": {Type: "object", Description: "The run's request counts while it runs.", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"phase": str("The phase running (warmup, profiling)."), "requestsSent": count64(), "requestsCompleted": count64(), "requestErrors": count64()}},
		"resultsPath": str("Path of the artifacts on the results endpoint (namespace/name)."),
		"apiUrl":      str("URL of the results endpoint."),
		"error":       str("Why the job failed."),
	}
}

func sweepStatusSchema() apiextensionsv1.JSONSchemaProps {
	count := apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32"}
	props := runProps()
	for k, v := range map[string]apiextensionsv1.JSONSchemaProps{
		"totalVariations": count,
		"completedRuns":   count,
		"failedRuns":      count,
		"children": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Required: []string{"name", "index"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"name": str("Child AIPerfJob."), "index": count, "label": str("Variation label."), "phase": phaseSchema()}}}},
		"resultsPath": str("Path of the sweep's artifacts on the results endpoint."),
		"error":       str("Why the sweep failed."),
	} {
		props[k] = v
	}
	return statusSchema(props)
}

func jobColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	return []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Phase", Type: "string", JSONPath: ".status.phase"},
		{Name: "Ready", Type: "integer", JSONPath: ".status.workers.ready"},
		{Name: "Connected", Type: "integer", JSONPath: ".status.workers.connected"},
		{Name: "Workers", Type: "integer", JSONPath: ".status.workers.total"},
		{Name: "Completed", Type: "integer", JSONPath: ".status.progress.requestsCompleted"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
}

func sweepColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	return []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Phase", Type: "string", JSONPath: ".status.phase"},
		{Name: "Variations", Type: "integer", JSONPath: ".status.totalVariations"},
		{Name: "Completed", Type: "integer", JSONPath: ".status.completedRuns"},
		{Name: "Failed", Type: "integer", JSONPath: ".status.failedRuns"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
}

func ptr[T any](v T) *T { return &v }
