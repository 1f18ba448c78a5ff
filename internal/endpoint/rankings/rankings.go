// Package rankings implements the reranking endpoints RAG stacks put
// behind retrieval: NVIDIA NIM (/v1/ranking), Hugging Face TEI (/rerank)
// and Cohere (/v2/rerank). Each request ranks a turn's passages against its
// query; the answer is a list of scores, not tokens.
//
// A turn's query is its first text named "query" (or "queries") and its
// passages are the texts named "passages", AIPerf's named-text contract.
package rankings

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// api is what tells the three APIs apart: the request body around the
// query and passages, and where the answer keeps its rankings.
type api struct {
	meta endpoint.Metadata
	body func(b *endpoint.Object, model, query string, passages []string)
	// scores reports whether a decoded answer holds a non-empty ranking.
	scores func(r *answer) bool
}

// Endpoint is one rankings API. It is stateless.
type Endpoint struct{ api *api }

var _ endpoint.Endpoint = Endpoint{}

func meta(typ, path, title, desc string) endpoint.Metadata {
	return endpoint.Metadata{
		Type: typ, Description: desc, Path: path, ServiceKind: "openai",
		MetricsTitle: title, TokenizesInput: true,
	}
}

var (
	nim = &api{
		meta: meta("nim_rankings", "/v1/ranking", "Rankings Metrics",
			"NVIDIA NIM reranking (/v1/ranking): {\"query\":{\"text\":..},\"passages\":[{\"text\":..}]}, "+
				"answered with a \"rankings\" list of {index, logit}."),
		body: func(b *endpoint.Object, model, query string, passages []string) {
			b.SetString("model", model)
			b.Set("query", textObject(nil, query))
			list := []byte{'['}
			for i, p := range passages {
				if i > 0 {
					list = append(list, ',')
				}
				list = textObject(list, p)
			}
			b.Set("passages", append(list, ']'))
		},
		scores: func(r *answer) bool { return r.Rankings.n > 0 },
	}
	tei = &api{
		meta: meta("hf_tei_rankings", "/rerank", "Ranking Metrics",
			"Hugging Face Text Embeddings Inference reranking (/rerank): {\"query\":..,\"texts\":[..]}, "+
				"answered with a list of {index, score}."),
		body: func(b *endpoint.Object, _, query string, passages []string) {
			b.SetString("query", query)
			b.SetStrings("texts", passages)
		},
		scores: func(r *answer) bool { return r.top.n > 0 || r.Results.n > 0 },
	}
	cohere = &api{
		meta: meta("cohere_rankings", "/v2/rerank", "Ranking Metrics",
			"Cohere Rerank v2 (/v2/rerank): {\"model\":..,\"query\":..,\"documents\":[..]}, answered with "+
				"\"results\" of {index, relevance_score}."),
		body: func(b *endpoint.Object, model, query string, passages []string) {
			b.SetString("model", model)
			b.SetString("query", query)
			b.SetStrings("documents", passages)
		},
		scores: func(r *answer) bool { return r.Results.n > 0 },
	}
)

// NewNIM returns the nim_rankings endpoint.
func NewNIM() endpoint.Endpoint { return Endpoint{nim} }

// NewTEI returns the hf_tei_rankings endpoint.
func NewTEI() endpoint.Endpoint { return Endpoint{tei} }

// NewCohere returns the cohere_rankings endpoint.
func NewCohere() endpoint.Endpoint { return Endpoint{cohere} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (e Endpoint) Metadata() endpoint.Metadata { return e.api.meta }

// ErrNoQuery is returned for a turn without a text named "query" or
// "queries".
var ErrNoQuery = errors.New(`a rankings request needs a text named "query" (or "queries"); ` +
	`give texts as [{"name":"query","contents":[..]},{"name":"passages","contents":[..]}] or use synthetic data`)

// QueryAndPassages splits a turn's texts by name: the first query (AIPerf
// uses the first of several) and every passage. Unnamed texts and other
// names are not sent.
func QueryAndPassages(t *dataset.Turn) (query string, passages []string, err error) {
	found := false
	for i, s := range t.Texts {
		name := ""
		if i < len(t.TextNames) {
			name = t.TextNames[i]
		}
		switch name {
		case "passages":
			passages = append(passages, s)
		case "query", "queries":
			if !found {
				query, found = s, true
			}
		}
	}
	if !found {
		return "", nil, ErrNoQuery
	}
	return query, passages, nil
}

// AppendPayload appends the API's body for the turn's query and passages,
// then the extra inputs. A requested output length does not apply.
func (e Endpoint) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	query, passages, err := QueryAndPassages(t)
	if err != nil {
		return dst, fmt.Errorf("%s: %w", e.api.meta.Type, err)
	}
	if passages == nil {
		passages = []string{}
	}
	model := t.Model
	if model == "" {
		model = o.Model
	}
	var body endpoint.Object
	e.api.body(&body, model, query, passages)
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// ParseResponse reads an answer: a non-empty ranking is output (no text);
// an empty one is no content. Usage and in-band errors are read as for
// chat.
func (e Endpoint) ParseResponse(data []byte) (record.Parsed, error) {
	var r answer
	trimmed := trim(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		// TEI answers with a bare list.
		if err := endpoint.DecodeValue(trimmed, &r.top); err != nil {
			return record.Parsed{}, fmt.Errorf("%s response: %w", e.api.meta.Type, err)
		}
		return record.Parsed{Output: e.api.scores(&r)}, nil
	}
	if done, err := endpoint.DecodeEvent(data, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("%s response: %w", e.api.meta.Type, err)
	} else if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(r.Object.S == "error")
	p.Output = e.api.scores(&r)
	return p, nil
}

// answer is the part of a rankings answer that is read.
type answer struct {
	endpoint.Envelope `json:",inline"`
	Object            endpoint.String `json:"object"`
	Rankings          list            `json:"rankings"`
	Results           list            `json:"results"`
	top               list            // a bare top-level list (TEI)
}

// list counts the elements of a JSON array; anything else counts 0.
type list struct{ n int }

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (l *list) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		if err := dec.SkipValue(); err != nil {
			return err
		}
		l.n++
	}
	_, err := dec.ReadToken()
	return err
}

// textObject appends {"text":s}.
func textObject(dst []byte, s string) []byte {
	dst = append(dst, `{"text":`...)
	dst = endpoint.AppendString(dst, s)
	return append(dst, '}')
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
