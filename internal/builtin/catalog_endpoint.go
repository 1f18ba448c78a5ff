package builtin

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

var (
	categoryEndpoint = plugin.Category{Name: "endpoint", Description: "Endpoints format requests and parse responses for one API each " +
		"(OpenAI-compatible, Anthropic, Hugging Face, Cohere, NIM, custom). One per run, chosen by --endpoint-type; " +
		"its metadata decides the URL path and which metrics the run shows."}
	categoryTransport = plugin.Category{Name: "transport", Description: "Transports carry requests to the server. One per run, " +
		"chosen by --transport or the URL scheme."}
	categoryURLSelection = plugin.Category{Name: "url_selection_strategy", Description: "How requests are spread over several " +
		"--url. One per run (--url-strategy)."}
)

// endpointEntries lists the endpoint types from their registered metadata,
// so the catalogue cannot drift from what runs.
func endpointEntries() []plugin.Entry {
	var out []plugin.Entry
	for _, p := range endpoints() {
		out = append(out, plugin.Entry{Name: p.Meta.Type, Description: p.Meta.Description, Metadata: endpointMetadata(p.Meta)})
	}
	return out
}

// endpointMetadata shows an endpoint's metadata under AIPerf's field
// names; false flags and empty fields are left out.
func endpointMetadata(m endpoint.Metadata) []plugin.Field {
	path := m.Path
	if path == "" {
		path = "(none: the --url is the whole address)"
	}
	fs := []plugin.Field{{Name: "endpoint_path", Value: path}}
	if m.StreamingPath != "" {
		fs = append(fs, plugin.Field{Name: "streaming_path", Value: m.StreamingPath})
	}
	fs = append(fs, plugin.Field{Name: "metrics_title", Value: m.MetricsTitle}, plugin.Field{Name: "service_kind", Value: m.ServiceKind})
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"supports_streaming", m.SupportsStreaming}, {"produces_tokens", m.ProducesTokens},
		{"tokenizes_input", m.TokenizesInput}, {"supports_images", m.SupportsImages},
		{"supports_audio", m.SupportsAudio}, {"supports_videos", m.SupportsVideos},
		{"produces_images", m.ProducesImages}, {"produces_videos", m.ProducesVideos},
		{"consumes_system_message", m.ConsumesSystemMessage}, {"supports_cache_bust", m.SupportsCacheBust},
		{"requires_form_data", m.RequiresFormData}, {"requires_polling", m.RequiresPolling},
		{"requires_inline_media", m.RequiresInlineMedia},
	} {
		fs = append(fs, plugin.Field{Name: f.name, Value: strconv.FormatBool(f.on)})
	}
	return fs
}

func transportEntries() []plugin.Entry {
	return []plugin.Entry{{Name: "http", Description: "HTTP over one shared connection pool: HTTP/1.1 by this port's lean client " +
		"(its only HTTP/1.1 engine), HTTP/2 by Go's net/http (--http-version 2, or auto where a TLS server picks h2); " +
		"TLS, proxies (AIPERF_HTTP_TRUST_ENV), URL credentials and compressed responses; SSE streaming " +
		"with every event stamped at its first byte, multipart uploads and job polling.",
		Metadata: []plugin.Field{{Name: "transport_type", Value: "http"}, {Name: "url_schemes", Value: "http, https"}}}}
}

func urlSelectionEntries() []plugin.Entry {
	return []plugin.Entry{entry("round_robin", "Request n goes to URL n mod len(urls).")}
}
