// Package builtin registers every plugin compiled into the binary, in one
// place and explicitly: no init() side effects, no global registries. Adding
// an endpoint type means adding one line here.
package builtin

import (
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/openai"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// EndpointFactory builds an endpoint implementation.
type EndpointFactory func() endpoint.Endpoint

// Registries holds one registry per plugin kind.
type Registries struct {
	Endpoints *plugin.Registry[EndpointFactory]
}

// New returns fresh registries holding every built-in plugin.
func New() *Registries {
	r := &Registries{Endpoints: plugin.New[EndpointFactory]("endpoint type")}
	must(r.Endpoints.Register("chat", openai.NewChat))
	must(r.Endpoints.Register("completions", openai.NewCompletions))
	return r
}

// must panics on a registration error, which can only be a programming
// mistake in this file (a duplicate or empty name); a test builds New().
func must(err error) {
	if err != nil {
		panic(err)
	}
}
