// Package builtin registers every plugin compiled into the binary, in one
// place and explicitly: no init() side effects, no global registries. Adding
// an endpoint type means adding one line to endpoints below; adding an
// entry to the `aiperf plugins` catalogue means adding it to the category's
// function (catalog*.go).
package builtin

import (
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/anthropic"
	"github.com/aiperf-go/aiperf/internal/endpoint/embeddings"
	"github.com/aiperf-go/aiperf/internal/endpoint/media"
	"github.com/aiperf-go/aiperf/internal/endpoint/openai"
	"github.com/aiperf-go/aiperf/internal/endpoint/rankings"
	"github.com/aiperf-go/aiperf/internal/endpoint/raw"
	"github.com/aiperf-go/aiperf/internal/endpoint/solido"
	"github.com/aiperf-go/aiperf/internal/endpoint/template"
	"github.com/aiperf-go/aiperf/internal/endpoint/tgi"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// EndpointPlugin is a built-in endpoint type: its metadata, known without
// building the endpoint (the template endpoint cannot be built without a
// template), and its factory.
type EndpointPlugin struct {
	Meta endpoint.Metadata
	// New builds the endpoint for a run; an error is a configuration
	// problem (no template, an invalid JMESPath response_field).
	New func(endpoint.Settings) (endpoint.Endpoint, error)
}

// Registries holds one registry per plugin kind.
type Registries struct {
	Endpoints *plugin.Registry[EndpointPlugin]
}

// New returns fresh registries holding every built-in plugin.
func New() *Registries {
	r := &Registries{Endpoints: plugin.New[EndpointPlugin]("endpoint type")}
	for _, p := range endpoints() {
		must(r.Endpoints.Register(p.Meta.Type, p))
	}
	return r
}

// endpoints lists the endpoint types, one per line, in AIPerf's catalogue
// order.
func endpoints() []EndpointPlugin {
	return []EndpointPlugin{
		fixed(media.NewAudioTranscription),
		fixed(openai.NewChat),
		fixed(rankings.NewCohere),
		fixed(openai.NewCompletions),
		fixed(openai.NewResponses),
		fixed(anthropic.New),
		fixed(embeddings.NewChatEmbeddings),
		fixed(embeddings.New),
		fixed(rankings.NewTEI),
		fixed(tgi.New),
		fixed(media.NewImageGeneration),
		fixed(media.NewImageEdit),
		fixed(media.NewVideoGeneration),
		fixed(media.NewImageRetrieval),
		fixed(embeddings.NewNIM),
		fixed(rankings.NewNIM),
		fixed(solido.New),
		{Meta: (*raw.Raw)(nil).Metadata(), New: raw.New},
		{Meta: (*template.Template)(nil).Metadata(), New: template.New},
	}
}

// fixed registers an endpoint that needs no settings.
func fixed(f func() endpoint.Endpoint) EndpointPlugin {
	return EndpointPlugin{
		Meta: f().Metadata(),
		New:  func(endpoint.Settings) (endpoint.Endpoint, error) { return f(), nil },
	}
}

// EndpointOrder lists the endpoint type names in catalogue order (AIPerf's
// plugins.yaml order), which `aiperf plugins endpoint` prints.
func EndpointOrder() []string {
	var names []string
	for _, p := range endpoints() {
		names = append(names, p.Meta.Type)
	}
	return names
}

// must panics on a registration error, which can only be a programming
// mistake in this file (a duplicate or empty name); a test builds New().
func must(err error) {
	if err != nil {
		panic(err)
	}
}
