package builtin

import (
	"cmp"
	"slices"

	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// shapeFirst are the endpoint types suggested first when a response fits
// several: the common APIs before their vendor variants (an OpenAI
// embeddings body fits embeddings, chat_embeddings and nim_embeddings).
var shapeFirst = []string{"chat", "completions", "embeddings", "responses", "messages"}

// ShapeCandidates are the endpoint types whose parsers can tell a body's
// shape, for endpoint.NewMisfit, most likely first: every registered type
// that needs no settings, except those that read any body as content (raw
// and template, which have no standard path, and the media generators and
// polled jobs, which count any answer as output).
func (r *Registries) ShapeCandidates() []endpoint.Candidate {
	names := r.Endpoints.Names()
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(shapeRank(a), shapeRank(b))
	})
	var out []endpoint.Candidate
	for _, name := range names {
		p, err := r.Endpoints.Lookup(name)
		if err != nil {
			continue
		}
		if m := p.Meta; m.Path == "" || m.ProducesImages || m.ProducesVideos || m.RequiresPolling {
			continue
		}
		ep, err := p.New(endpoint.Settings{})
		if err != nil {
			continue
		}
		out = append(out, endpoint.Candidate{Type: name, Endpoint: ep})
	}
	return out
}

func shapeRank(name string) int {
	if i := slices.Index(shapeFirst, name); i >= 0 {
		return i
	}
	return len(shapeFirst)
}
