// Package solido implements the Solido RAG pipeline's prompt API
// (/rag/api/prompt): a query list with retrieval filters, answered with
// the generated content and its sources.
package solido

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// RAG is the solido_rag endpoint. It is stateless.
type RAG struct{}

var _ endpoint.Endpoint = RAG{}

// New returns the solido_rag endpoint.
func New() endpoint.Endpoint { return RAG{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (RAG) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "solido_rag",
		Description: "Solido RAG pipeline (/rag/api/prompt): {\"query\":[..],\"filters\":{..}," +
			"\"inference_model\":..}, answered with the generated \"content\" and its \"sources\".",
		Path:              "/rag/api/prompt",
		ServiceKind:       "openai",
		MetricsTitle:      "SOLIDO RAG Metrics",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
	}
}

// DefaultFilters are the retrieval filters every request carries unless
// --extra-inputs replaces them.
const DefaultFilters = `{"family":"Solido","tool":"SDE"}`

// AppendPayload appends {"query":[<non-empty texts>],"filters":{"family":
// "Solido","tool":"SDE"},"inference_model":<model>,<extras>}.
func (RAG) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	query := []string{}
	for _, s := range t.Texts {
		if s != "" {
			query = append(query, s)
		}
	}
	model := t.Model
	if model == "" {
		model = o.Model
	}
	var body endpoint.Object
	body.SetStrings("query", query)
	body.Set("filters", []byte(DefaultFilters))
	body.SetString("inference_model", model)
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

type response struct {
	endpoint.Envelope `json:",inline"`
	Content           endpoint.String `json:"content"`
}

// ParseResponse reads the generated "content" (each streamed event's, or
// the whole answer's); the sources are not measured.
func (RAG) ParseResponse(data []byte) (record.Parsed, error) {
	var r response
	done, err := endpoint.DecodeEvent(data, &r)
	if err != nil {
		return record.Parsed{}, fmt.Errorf("solido rag response: %w", err)
	}
	if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(false)
	p.Text = r.Content.S
	return p, nil
}
