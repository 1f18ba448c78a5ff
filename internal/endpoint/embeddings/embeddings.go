// Package embeddings implements the embedding endpoints: OpenAI's
// /v1/embeddings (embeddings), NVIDIA NIM's superset of it with images
// (nim_embeddings), and vLLM's chat-style multimodal embeddings
// (chat_embeddings). Their answers are vectors, not tokens, so a run shows
// latency and throughput metrics but no output-token ones.
package embeddings

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Embeddings is the OpenAI Embeddings endpoint. It is stateless.
type Embeddings struct{}

var _ endpoint.Endpoint = Embeddings{}

// New returns the embeddings endpoint (--endpoint-type embeddings).
func New() endpoint.Endpoint { return Embeddings{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (Embeddings) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "embeddings",
		Description: "OpenAI Embeddings API (/v1/embeddings): each request embeds a batch of texts " +
			"(--batch-size of them); the answer is one vector per text. No streaming.",
		Path:           "/v1/embeddings",
		ServiceKind:    "openai",
		MetricsTitle:   "Embeddings Metrics",
		TokenizesInput: true,
	}
}

// AppendPayload appends {"model":..,"input":[<non-empty texts>],<extras>}.
// A requested output length does not apply and is not sent.
func (Embeddings) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	return appendPayload(dst, t, o, nonEmpty(t.Texts))
}

func appendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options, inputs []string) ([]byte, error) {
	var body endpoint.Object
	body.SetString("model", model(t, o))
	body.SetStrings("input", inputs)
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// ParseResponse reads an OpenAI embeddings body: a "data" list whose items
// are all "object":"embedding" is output (no text) when any carries an
// embedding; a list with other items is an error, as in AIPerf; no data
// is no content. Usage and in-band errors are read as for chat.
func (Embeddings) ParseResponse(data []byte) (record.Parsed, error) {
	var r embeddingsResponse
	if done, err := endpoint.DecodeEvent(data, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("embeddings response: %w", err)
	} else if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(r.Object.S == "error")
	if len(r.Data) == 0 {
		return p, nil
	}
	for _, it := range r.Data {
		if it.Object.S != "embedding" {
			return record.Parsed{}, fmt.Errorf("embeddings response: data holds an item that is not an embedding (object %q)", it.Object.S)
		}
	}
	for _, it := range r.Data {
		if it.Embedding.Set {
			p.Output = true
		}
	}
	return p, nil
}

// embeddingsResponse is the part of an embeddings answer that is read.
type embeddingsResponse struct {
	endpoint.Envelope `json:",inline"`
	Object            endpoint.String `json:"object"`
	Data              []embeddingItem `json:"data"`
	Embeddings        vectorList      `json:"embeddings"`
	Embedding         vectorList      `json:"embedding"`
}

type embeddingItem struct {
	Object    endpoint.String `json:"object"`
	Embedding present         `json:"embedding"`
}

// hasEmbeddings is AIPerf's try_extract_embeddings: OpenAI-shaped data
// whose first item is an embedding object, or a non-empty "embeddings" /
// "embedding" vector or list of vectors.
func (r *embeddingsResponse) hasEmbeddings() bool {
	if len(r.Data) > 0 && r.Data[0].Object.S == "embedding" {
		for _, it := range r.Data {
			if it.Embedding.Set {
				return true
			}
		}
	}
	return r.Embeddings.ok || r.Embedding.ok
}

// present records that a member is there and not null.
type present struct{ Set bool }

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (p *present) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	p.Set = dec.PeekKind() != 'n'
	return dec.SkipValue()
}

// vectorList recognises a non-empty list whose first element is a number
// or a list.
type vectorList struct{ ok bool }

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (v *vectorList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if raw.Kind() != '[' {
		return nil
	}
	inner := jsontext.NewDecoder(bytesReader(raw))
	if _, err := inner.ReadToken(); err != nil {
		return err
	}
	k := inner.PeekKind()
	v.ok = k == '0' || k == '['
	return nil
}

// NIM is NVIDIA NIM's embeddings endpoint, a superset of OpenAI's that
// embeds images too. It is stateless.
type NIM struct{}

var _ endpoint.Endpoint = NIM{}

// NewNIM returns the nim_embeddings endpoint.
func NewNIM() endpoint.Endpoint { return NIM{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (NIM) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "nim_embeddings",
		Description: "NVIDIA NIM Embeddings API (/v1/embeddings): OpenAI's body, whose inputs may also be " +
			"images (data URLs), or text and image pairs joined by a space. No streaming.",
		Path:           "/v1/embeddings",
		ServiceKind:    "openai",
		MetricsTitle:   "NIM Embeddings Metrics",
		TokenizesInput: true,
		SupportsImages: true,
	}
}

// AppendPayload sends the texts, the images, or, when a turn has both,
// each text and its image joined by a space (they must pair up).
func (NIM) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	texts, images := nonEmpty(t.Texts), nonEmpty(t.Images)
	inputs := texts
	switch {
	case len(texts) > 0 && len(images) > 0:
		if len(texts) != len(images) {
			return dst, fmt.Errorf("nim_embeddings: when both texts and images are given they must pair up; got %d texts and %d images", len(texts), len(images))
		}
		inputs = make([]string, len(texts))
		for i := range texts {
			inputs[i] = texts[i] + " " + images[i]
		}
	case len(images) > 0:
		inputs = images
	}
	return appendPayload(dst, t, o, inputs)
}

// ParseResponse reads an OpenAI-shaped embeddings body.
func (NIM) ParseResponse(data []byte) (record.Parsed, error) {
	return Embeddings{}.ParseResponse(data)
}

func nonEmpty(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func model(t *dataset.Turn, o *endpoint.Options) string {
	if t.Model != "" {
		return t.Model
	}
	return o.Model
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
