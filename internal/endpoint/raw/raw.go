// Package raw implements the raw endpoint, the fallback for APIs no other
// endpoint speaks: each request body is a dataset turn's raw payload sent
// verbatim (--custom-dataset-type raw_payload or inputs_json), nothing is
// appended to the --url, and responses are read by an optional JMESPath
// expression (--extra-inputs response_field:<expr>) with auto-detection of
// embeddings, rankings and text as the fallback.
package raw

import (
	"errors"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Raw is the raw endpoint. It is safe for concurrent use.
type Raw struct {
	x *endpoint.Extractor
}

var _ endpoint.Endpoint = (*Raw)(nil)

// New builds the raw endpoint; a response_field that is not valid
// JMESPath is an error.
func New(s endpoint.Settings) (endpoint.Endpoint, error) {
	expr, _ := s.ExtraString("response_field")
	x, err := endpoint.NewExtractor(expr, false)
	if err != nil {
		return nil, err
	}
	return &Raw{x: x}, nil
}

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (*Raw) Metadata() endpoint.Metadata {
	return endpoint.FreeForm("raw", "Fallback for APIs no other endpoint speaks: dataset payloads (raw_payload, inputs_json) "+
		"are sent verbatim to --url as given; responses are read by --extra-inputs response_field:<JMESPath>, "+
		"else auto-detected (embeddings, rankings, text).")
}

// ErrNoRawPayload is returned for a turn that has no raw payload.
var ErrNoRawPayload = errors.New("the raw endpoint sends dataset payloads verbatim, and this turn has none; " +
	"use --custom-dataset-type raw_payload or inputs_json")

// AppendPayload appends the turn's raw payload as it is.
func (*Raw) AppendPayload(dst []byte, t *dataset.Turn, _ *endpoint.Options) ([]byte, error) {
	if t.RawPayload == nil {
		return dst, ErrNoRawPayload
	}
	return append(dst, t.RawPayload...), nil
}

// ParseResponse reads a body or event with the JMESPath expression, then
// auto-detection (endpoint.Extractor).
func (r *Raw) ParseResponse(data []byte) (record.Parsed, error) { return r.x.ParseResponse(data) }
