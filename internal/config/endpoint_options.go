package config

import "strings"

// ModelSelectionStrategy is how turns are assigned to the models of -m
// (--model-selection-strategy).
type ModelSelectionStrategy string

// Model selection strategies, AIPerf's values. The empty value means "not
// given" (round robin).
const (
	ModelRoundRobin ModelSelectionStrategy = "round_robin"
	ModelRandom     ModelSelectionStrategy = "random"
)

// ModelSelectionStrategies lists the valid values in help order.
func ModelSelectionStrategies() []ModelSelectionStrategy {
	return []ModelSelectionStrategy{ModelRoundRobin, ModelRandom}
}

// URLStrategy is how requests are spread over several --url
// (--url-strategy). AIPerf 0.13 has round_robin only.
type URLStrategy string

// URLRoundRobin sends request i to URL i mod n.
const URLRoundRobin URLStrategy = "round_robin"

// URLStrategies lists the valid values.
func URLStrategies() []URLStrategy { return []URLStrategy{URLRoundRobin} }

// TransportType is the transport plugin (--transport): http, what a
// URL's scheme selects when not given, or sagemaker (aws.go).
type TransportType string

// TransportHTTP is HTTP/1.1 with SSE streaming.
const TransportHTTP TransportType = "http"

// TransportTypes lists the valid values.
func TransportTypes() []TransportType { return []TransportType{TransportHTTP, TransportSageMaker} }

// RequestContentType is how request bodies are encoded
// (--request-content-type).
type RequestContentType string

// Request content types, AIPerf's values. The empty value means "not
// given": multipart for endpoints that upload files, JSON for the others.
const (
	ContentJSON      RequestContentType = "application/json"
	ContentMultipart RequestContentType = "multipart/form-data"
)

// RequestContentTypes lists the valid values.
func RequestContentTypes() []RequestContentType {
	return []RequestContentType{ContentJSON, ContentMultipart}
}

// EndpointOptions are the Endpoint group's options about how requests are
// shaped and sent beyond the API format itself. They are embedded in
// Endpoint, so their JSON names sit in the endpoint section.
type EndpointOptions struct {
	// ModelSelection assigns turns to models; "" = round robin.
	ModelSelection ModelSelectionStrategy `json:"model_selection_strategy,omitempty"`
	// URLStrategy spreads requests over the URLs; "" = round robin.
	URLStrategy URLStrategy `json:"url_strategy,omitempty"`
	// Transport is the transport plugin; "" = chosen by the URL scheme.
	Transport TransportType `json:"transport,omitempty"`
	// PerChunkUsage asks a streaming chat server for cumulative usage on
	// every chunk (stream_options.continuous_usage_stats).
	PerChunkUsage bool `json:"per_chunk_usage,omitempty"`
	// RequestContentType encodes request bodies; "" = by endpoint.
	RequestContentType RequestContentType `json:"request_content_type,omitempty"`
	// DownloadVideoContent downloads a finished video job's output, within
	// the request's latency.
	DownloadVideoContent bool `json:"download_video_content,omitempty"`
	// UUIDAndStrip drops the bytes of an image a conversation already sent,
	// sending its cache UUID alone (vLLM's multimodal processor cache).
	UUIDAndStrip bool `json:"uuid_and_strip,omitempty"`
	// Template is the template endpoint's configuration (config files'
	// endpoint.template); nil when not given.
	Template *TemplateConfig `json:"template,omitempty"`
}

// TemplateConfig is endpoint.template of a config file.
type TemplateConfig struct {
	// Body is a named template, a template file or the template itself.
	Body string `json:"body"`
	// ResponseField is a JMESPath expression picking the response text;
	// "text" (the default) auto-detects.
	ResponseField string `json:"response_field,omitempty"`
}

// ResolvedModelSelection is the model selection strategy in effect.
func (c *Config) ResolvedModelSelection() ModelSelectionStrategy {
	if c.Endpoint.ModelSelection == "" {
		return ModelRoundRobin
	}
	return c.Endpoint.ModelSelection
}

// EndpointRequiresFormData reports the endpoint types whose bodies are
// multipart uploads. config knows endpoint types only by name, so this
// mirrors the endpoint metadata (requires_form_data) for validation; a
// test in builtin keeps the two in step.
func EndpointRequiresFormData(t EndpointType) bool {
	switch t {
	case EndpointImageEdit, EndpointVideoGeneration, EndpointAudioTranscription:
		return true
	}
	return false
}

// validateEndpointOptions checks the options above with AIPerf's rules.
func (c *Config) validateEndpointOptions(p *problems) {
	e := &c.Endpoint
	if e.ModelSelection != "" && !contains(ModelSelectionStrategies(), e.ModelSelection) {
		p.add("--model-selection-strategy", "invalid choice %q (choose from %s)", e.ModelSelection, joinChoices(ModelSelectionStrategies()))
	}
	if e.URLStrategy != "" && !contains(URLStrategies(), e.URLStrategy) {
		p.add("--url-strategy", "invalid choice %q (choose from %s)", e.URLStrategy, joinChoices(URLStrategies()))
	}
	if e.Transport != "" && !contains(TransportTypes(), e.Transport) {
		p.add("--transport", "invalid choice %q (choose from %s)", e.Transport, joinChoices(TransportTypes()))
	}
	if e.PerChunkUsage {
		if !e.UseServerTokenCount {
			p.add("--per-chunk-usage", "requires --use-server-token-count (the first chunk's token count comes from the server's per-chunk usage)")
		}
		if e.Type != EndpointChat {
			p.add("--per-chunk-usage", "requires --endpoint-type chat (continuous_usage_stats is a chat stream option), got %q", e.Type)
		}
		if !e.Streaming {
			p.add("--per-chunk-usage", "requires --streaming")
		}
	}
	switch ct := e.RequestContentType; {
	case ct == "":
	case !contains(RequestContentTypes(), RequestContentType(strings.ToLower(string(ct)))):
		p.add("--request-content-type", "invalid choice %q (choose from %s)", ct, joinChoices(RequestContentTypes()))
	case RequestContentType(strings.ToLower(string(ct))) == ContentJSON && EndpointRequiresFormData(e.Type):
		p.add("--request-content-type", "endpoint type %s uploads files and requires multipart/form-data; application/json is not supported", e.Type)
	case RequestContentType(strings.ToLower(string(ct))) == ContentMultipart && !EndpointRequiresFormData(e.Type):
		p.add("--request-content-type", "multipart/form-data is only supported by endpoint types that upload files (image_edit, video_generation, audio_transcription), not %s", e.Type)
	}
	if e.DownloadVideoContent && e.Type != EndpointVideoGeneration {
		p.add("--download-video-content", "only applies to --endpoint-type video_generation, got %q", e.Type)
	}
	if e.UUIDAndStrip && e.Type != EndpointChat {
		p.add("--uuid-and-strip", "requires --endpoint-type chat, got %q", e.Type)
	}
	if e.Template != nil && e.Type != EndpointTemplate {
		p.add("--endpoint-type", "endpoint.template is set, which needs endpoint type template, got %q", e.Type)
	}
}

// RequestContentTypeFor resolves the body encoding for an endpoint type:
// the given one, else multipart for endpoints that upload files.
func (c *Config) RequestContentTypeFor(requiresFormData bool) RequestContentType {
	if ct := RequestContentType(strings.ToLower(string(c.Endpoint.RequestContentType))); ct != "" {
		return ct
	}
	if requiresFormData {
		return ContentMultipart
	}
	return ContentJSON
}
