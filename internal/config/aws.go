package config

// AuthType is how requests are authenticated (--auth-type).
type AuthType string

// Auth types, AIPerf's. The empty value means "not given" (none).
const (
	AuthNone  AuthType = "none"
	AuthSigV4 AuthType = "sigv4"
)

// AuthTypes lists the valid values.
func AuthTypes() []AuthType { return []AuthType{AuthNone, AuthSigV4} }

// TransportSageMaker invokes a SageMaker Runtime endpoint
// (--sagemaker-endpoint-name selects it).
const TransportSageMaker TransportType = "sagemaker"

// AWS are the options of AWS SigV4 signing and SageMaker endpoints
// (AIPerf's "AWS" options, in the Endpoint group). They are embedded in
// Endpoint, so their JSON names sit in the endpoint section.
type AWS struct {
	// AuthType sigv4 signs every request with AWS credentials; "" = none.
	AuthType AuthType `json:"auth_type,omitempty"`
	// AWSRegion is the SigV4 credential scope's region (and, for
	// SageMaker, the hostname's).
	AWSRegion string `json:"aws_region,omitempty"`
	// AWSService is the SigV4 signing name (execute-api, sagemaker, ...);
	// the SageMaker transport supplies its own.
	AWSService string `json:"aws_service,omitempty"`
	// AWSProfile names the shared-config profile to take credentials
	// from; "" = the standard chain (AWS_PROFILE, then default).
	AWSProfile string `json:"aws_profile,omitempty"`
	// SageMakerEndpointName selects the SageMaker transport and names
	// the endpoint invoked.
	SageMakerEndpointName string `json:"sagemaker_endpoint_name,omitempty"`
	// SageMakerTargetModel is the model artifact a multi-model endpoint
	// invokes (InvokeEndpoint only).
	SageMakerTargetModel string `json:"sagemaker_target_model,omitempty"`
	// SageMakerInferenceComponentName is the inference component invoked.
	SageMakerInferenceComponentName string `json:"sagemaker_inference_component_name,omitempty"`
	// SageMakerTargetVariant pins every request to one production variant.
	SageMakerTargetVariant string `json:"sagemaker_target_variant,omitempty"`
}

// SageMaker reports whether requests go through the SageMaker transport:
// --sagemaker-endpoint-name or --transport sagemaker.
func (c *Config) SageMaker() bool {
	return c.Endpoint.SageMakerEndpointName != "" || c.Endpoint.Transport == TransportSageMaker
}

// Signs reports whether requests are SigV4-signed: --auth-type sigv4, or
// the SageMaker transport, which always signs.
func (c *Config) Signs() bool {
	return c.Endpoint.AuthType == AuthSigV4 || c.SageMaker()
}

// SigningService is the SigV4 signing name: --aws-service, else
// SageMaker Runtime's own ("sagemaker", not "sagemaker-runtime").
func (c *Config) SigningService() string {
	if c.Endpoint.AWSService != "" || !c.SageMaker() {
		return c.Endpoint.AWSService
	}
	return "sagemaker"
}

// validateAWS checks the AWS options with AIPerf's rules: an --aws-*
// option without signing would be silently ignored, so it is refused;
// signing needs a region and (outside SageMaker) a service; a multipart
// body is never signed, so multipart endpoints are refused rather than
// sent unauthenticated; the SageMaker routing options need the SageMaker
// transport; and what cannot work against a SageMaker endpoint is
// refused at startup with the reason.
func (c *Config) validateAWS(p *problems) {
	e := &c.Endpoint
	if e.AuthType != "" && !contains(AuthTypes(), e.AuthType) {
		p.add("--auth-type", "invalid choice %q (choose from %s)", e.AuthType, joinChoices(AuthTypes()))
	}
	sm := c.SageMaker()
	if !c.Signs() {
		for _, f := range []struct{ flag, v string }{{"--aws-region", e.AWSRegion}, {"--aws-service", e.AWSService}, {"--aws-profile", e.AWSProfile}} {
			if f.v != "" {
				p.add(f.flag, "requires --auth-type sigv4 (or --sagemaker-endpoint-name); without signing it would be ignored")
			}
		}
	}
	for _, f := range []struct{ flag, v string }{
		{"--sagemaker-target-model", e.SageMakerTargetModel},
		{"--sagemaker-inference-component-name", e.SageMakerInferenceComponentName},
		{"--sagemaker-target-variant", e.SageMakerTargetVariant},
	} {
		if f.v != "" && !sm {
			p.add(f.flag, "requires the SageMaker transport (--sagemaker-endpoint-name or --transport sagemaker); any other transport would ignore it and benchmark the endpoint's default routing")
		}
	}
	if !c.Signs() {
		return
	}
	if e.AWSRegion == "" {
		p.add("--aws-region", "is required with %s: it is the SigV4 credential scope", signer(c))
	}
	if e.AWSService == "" && !sm {
		p.add("--aws-service", "is required with --auth-type sigv4 (execute-api for API Gateway, sagemaker for SageMaker Runtime)")
	}
	if EndpointRequiresFormData(e.Type) || RequestContentType(e.RequestContentType) == ContentMultipart {
		p.add("--auth-type", "endpoint type %s sends multipart/form-data, whose body SigV4 signing cannot hash; it is refused rather than sent unauthenticated", e.Type)
	}
	if !sm {
		return
	}
	if e.Transport != "" && e.Transport != TransportSageMaker {
		p.add("--transport", "%s conflicts with --sagemaker-endpoint-name, which selects the sagemaker transport", e.Transport)
	}
	if e.SageMakerEndpointName == "" && e.CustomEndpoint == "" {
		p.add("--sagemaker-endpoint-name", "is required with --transport sagemaker (or give the invocation path with --endpoint)")
	}
	if e.WaitForModelTimeout > 0 {
		p.add("--wait-for-model-timeout", "is not supported with the SageMaker transport: the readiness probe targets OpenAI routes such as /v1/models, and a SageMaker endpoint serves only /endpoints/{name}/invocations")
	}
	if c.Telemetry.ResetKVCache != nil {
		p.add("--reset-kv-cache", "is not supported with the SageMaker transport: control-plane hooks require the plain http transport")
	}
	if c.Telemetry.ServerProfiler != nil {
		p.add("--server-profiler", "is not supported with the SageMaker transport: control-plane hooks require the plain http transport")
	}
}

func signer(c *Config) string {
	if c.Endpoint.AuthType == AuthSigV4 {
		return "--auth-type sigv4"
	}
	return "the SageMaker transport"
}
