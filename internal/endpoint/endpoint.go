// Package endpoint is the plugin host for API formats: it defines what an
// endpoint must do (build a request body from a dataset turn, parse a response
// chunk), the metadata that decides which metrics apply, and the building
// blocks every API family shares (ordered JSON bodies with AIPerf's merge
// rules, lenient response decoding, usage in every vendor's spelling,
// response auto-detection, URL joining and multipart encoding), as AIPerf's
// BaseEndpoint does for its plugins.
//
// Implementations live in one sub-package per API family (endpoint/openai,
// endpoint/anthropic, endpoint/tgi, endpoint/embeddings, endpoint/rankings,
// endpoint/media, endpoint/solido, endpoint/template, endpoint/raw) and are
// registered explicitly in internal/builtin.
package endpoint

import (
	"net/http"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Metadata describes an endpoint type, field for field AIPerf's endpoint
// plugin metadata (plugins.yaml), plus the description `aiperf plugins`
// prints. The capability flags decide which metrics a run shows
// (metrics.Selection); the request flags decide how the worker sends.
type Metadata struct {
	Type        string // --endpoint-type value, e.g. "chat"
	Description string // one paragraph, for `aiperf plugins endpoint <type>`
	// Path is the default URL path, e.g. "/v1/chat/completions". Empty
	// (raw, template) appends nothing: the --url is the whole address.
	Path string
	// StreamingPath replaces Path when the run streams (TGI's
	// /generate_stream); empty when the path does not change.
	StreamingPath string
	ServiceKind   string // artifact-directory component, e.g. "openai"
	MetricsTitle  string // console title suffix, e.g. "LLM Metrics"

	SupportsStreaming bool
	ProducesTokens    bool
	TokenizesInput    bool
	// SupportsImages, SupportsAudio and SupportsVideos report that turns'
	// media reach the server; they enable AIPerf's SUPPORTS_IMAGE_ONLY,
	// SUPPORTS_AUDIO_ONLY and SUPPORTS_VIDEO_ONLY metrics.
	SupportsImages bool
	SupportsAudio  bool
	SupportsVideos bool
	// ProducesImages and ProducesVideos report media output
	// (PRODUCES_VIDEO_ONLY metrics).
	ProducesImages bool
	ProducesVideos bool
	// ConsumesSystemMessage: the conversation's system prompt reaches the
	// wire (a system message, Responses instructions, Anthropic system).
	ConsumesSystemMessage bool
	// SupportsCacheBust: the formatter can mark payloads to defeat prefix
	// caches.
	SupportsCacheBust bool
	// RequiresFormData: the body is sent as multipart/form-data (file
	// uploads); --request-content-type defaults to it.
	RequiresFormData bool
	// RequiresPolling: the API is an asynchronous job (submit, poll until
	// done, optionally download); the endpoint implements Poller.
	RequiresPolling bool
	// RequiresInlineMedia: media URLs must be inlined as data URLs before
	// sending.
	RequiresInlineMedia bool
	// ImagePart is the "type" of the content parts that carry images in
	// this endpoint's bodies (counted for num_images); empty when the body
	// has none.
	ImagePart string
}

// FreeForm is the metadata of an endpoint whose body is no one API's (raw,
// template): no path (the --url is the whole address), every kind of
// input may reach the server, and answers are read as text, streamed or
// not, whatever their shape.
func FreeForm(typ, description string) Metadata {
	return Metadata{
		Type:              typ,
		Description:       description,
		ServiceKind:       "openai",
		MetricsTitle:      "LLM Metrics",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		SupportsAudio:     true,
		SupportsImages:    true,
		SupportsVideos:    true,
	}
}

// ExtraInput is one --extra-inputs entry, or one of a dataset turn's own
// extra fields: a body field and its JSON value.
type ExtraInput struct {
	Key   string
	Value []byte // valid JSON
	// Turn marks a dataset turn's own field (WithTurnExtra). Endpoints
	// merge both kinds into the body alike, except TGI, which sends the
	// run's extras as generation parameters and the turn's at the top.
	Turn bool
}

// Options are the run-wide request settings an endpoint formats with.
type Options struct {
	Model              string
	Streaming          bool
	UseLegacyMaxTokens bool         // chat: send max_tokens instead of max_completion_tokens
	Extra              []ExtraInput // merged last into the body, in order; later keys win
	// PerChunkUsage asks a streaming chat server for cumulative usage on
	// every chunk (stream_options.continuous_usage_stats, --per-chunk-usage).
	PerChunkUsage bool
	// UseServerTokenCount is --use-server-token-count; the Responses API
	// asks for stream usage only then, as AIPerf does.
	UseServerTokenCount bool
	// History is the conversation before this turn, oldest first: earlier
	// user turns and the server's actual replies. Chat endpoints send it as
	// the messages before the turn's own; endpoints without a message list
	// ignore it. Empty for first turns, so bodies built before the run
	// (inputs.json) have none.
	History []Message
}

// Message is one entry of a conversation's history. Exactly one of Turn
// (an earlier dataset turn, rendered as the endpoint renders any turn) or
// Text (an assistant reply as parsed from its response) is set.
type Message struct {
	Role string        // "assistant" for replies; a Turn's own Role is used for turns
	Turn *dataset.Turn // an earlier turn of the conversation
	Text string        // the reply text, when Turn is nil
}

// Endpoint formats requests and parses responses for one API.
// Implementations are safe for concurrent use.
type Endpoint interface {
	Metadata() Metadata
	// AppendPayload appends the JSON request body for turn t to dst.
	AppendPayload(dst []byte, t *dataset.Turn, o *Options) ([]byte, error)
	// ParseResponse parses one SSE data payload, or a whole non-streaming
	// body. A payload that is not what the API promises (invalid JSON, wrong
	// shape) is an error; an in-band error object is reported in
	// Parsed.Error instead.
	ParseResponse(data []byte) (record.Parsed, error)
}

// Streamer is implemented by endpoints whose reading of a chunk depends on
// the chunks before it in the same response (the Responses API sends its
// text twice, Anthropic splits usage over two events). NewStream returns a
// parser for one response's chunks, used in arrival order and then
// dropped; the endpoint's own ParseResponse stays the stateless reading.
type Streamer interface {
	NewStream() record.ChunkParser
}

// HeaderSetter is implemented by endpoints whose protocol headers differ
// from OpenAI's (Anthropic's x-api-key and anthropic-version). SetHeaders
// gets the run's headers with the user's -H headers already applied and
// the API key, and sets the endpoint's authentication and protocol
// headers; without it the key goes out as "Authorization: Bearer <key>".
type HeaderSetter interface {
	SetHeaders(h http.Header, apiKey string)
}

// Poller is implemented by endpoints whose API is an asynchronous job
// (Metadata.RequiresPolling): the submit response names a job, which is
// polled with GET <url>/<id> until it completes.
type Poller interface {
	// JobID returns the job id of a submit response body.
	JobID(body []byte) (string, error)
	// JobState reads a poll response: done once the job completed; a
	// failed job is an error naming the server's reason.
	JobState(body []byte) (done bool, err error)
	// ContentURL returns where the finished job's output can be
	// downloaded: the response's url, else <pollURL>/content.
	ContentURL(body []byte, pollURL string) string
}

// Settings are what an endpoint is built with, for the endpoints that are
// more than a fixed API format (template, raw). Factories of the others
// ignore them.
type Settings struct {
	// Extra are the run's --extra-inputs, where AIPerf's raw and template
	// endpoints read payload_template and response_field.
	Extra []ExtraInput
	// TemplateBody is endpoint.template.body of a config file: a named
	// template, a template file or an inline template. When set it wins
	// over payload_template, and every extra input is sent.
	TemplateBody string
	// TemplateResponseField is endpoint.template.response_field.
	TemplateResponseField string
	// ReadFile reads a user-named file (a template); nil reads none.
	ReadFile func(path string) ([]byte, error)
}

// ExtraString returns the string value of the extra input key, if there
// is one and it is a JSON string.
func (s *Settings) ExtraString(key string) (string, bool) {
	for i := len(s.Extra) - 1; i >= 0; i-- {
		if s.Extra[i].Key != key {
			continue
		}
		v := trimSpace(s.Extra[i].Value)
		if len(v) > 0 && v[0] == '"' {
			return Unquote(v), true
		}
		return string(v), true
	}
	return "", false
}
