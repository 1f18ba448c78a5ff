package benchmark

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/sagemaker"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/userfile"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// buildEndpoint builds the run's endpoint from its registered plugin: the
// template and raw endpoints read their template and JMESPath
// response_field from the extra inputs or the config file's
// endpoint.template.
func buildEndpoint(cfg *config.Config, ep builtin.EndpointPlugin) (endpoint.Endpoint, error) {
	s := endpoint.Settings{Extra: extraInputs(cfg), ReadFile: userfile.ReadFile}
	if t := cfg.Endpoint.Template; t != nil {
		s.TemplateBody, s.TemplateResponseField = t.Body, t.ResponseField
	}
	e, err := ep.New(s)
	if err != nil {
		return nil, fmt.Errorf("--endpoint-type %s: %w", ep.Meta.Type, err)
	}
	return e, nil
}

// extraInputs converts --extra-inputs for the endpoint.
func extraInputs(cfg *config.Config) []endpoint.ExtraInput {
	var out []endpoint.ExtraInput
	for _, e := range cfg.Input.Extra {
		out = append(out, endpoint.ExtraInput{Key: e.Key, Value: e.Value})
	}
	return out
}

// endpointURLs are the full request URLs: each base URL joined with the
// endpoint's path as AIPerf joins them (see endpoint.JoinURL), the
// streaming path when the run streams and the endpoint has one, and
// --custom-endpoint instead of either when given.
func endpointURLs(cfg *config.Config, meta endpoint.Metadata, streaming bool) []string {
	if cfg.SageMaker() {
		return sageMakerURLs(cfg, streaming)
	}
	path := meta.Path
	if streaming && meta.StreamingPath != "" {
		path = meta.StreamingPath
	}
	if cfg.Endpoint.CustomEndpoint != "" {
		path = cfg.Endpoint.CustomEndpoint
	}
	urls := make([]string, 0, len(cfg.Endpoint.URLs))
	for _, u := range cfg.Endpoint.URLs {
		urls = append(urls, endpoint.JoinURL(config.NormalizeURL(u), path))
	}
	return urls
}

// requestHeader builds the headers every request carries, in AIPerf's
// order of precedence: a User-Agent, then each -H header in order (a later
// one replaces an earlier one of the same name), then the API key (a
// bearer token, or the endpoint's own scheme such as Anthropic's
// x-api-key), then Accept (the event stream when streaming) and the
// Content-Type, which the worker replaces with a multipart boundary for
// endpoints that upload files.
func requestHeader(cfg *config.Config, ep endpoint.Endpoint, streaming bool) http.Header {
	h := http.Header{}
	h.Set("User-Agent", "aiperf-go")
	for _, x := range cfg.Input.Headers {
		h.Set(x.Name, x.Value)
	}
	key := string(cfg.Endpoint.APIKey)
	if cfg.Signs() {
		key = "" // the signer owns Authorization; a bearer token or x-api-key would conflict with it
	}
	if hs, ok := ep.(endpoint.HeaderSetter); ok {
		hs.SetHeaders(h, key)
	} else if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	accept := "application/json"
	if streaming {
		accept = "text/event-stream"
	}
	h.Set("Accept", accept)
	h.Set("Content-Type", "application/json")
	if cfg.SageMaker() {
		sagemaker.SetHeaders(h, sageMakerOptions(cfg), streaming)
	}
	return h
}

// affinityHeaders are the session-affinity headers sent with the
// correlation id besides --session-header, each switched by AIPerf's
// environment variable of the same purpose: X-Session-Affinity (on unless
// AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID is false),
// X-Session-ID, X-SMG-Routing-Key and X-Dynamo-Session-ID (off unless
// theirs is true).
func affinityHeaders(getenv func(string) string) []string {
	var out []string
	for _, h := range []struct {
		env, header string
		def         bool
	}{
		{"AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID", "X-Session-ID", false},
		{"AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID", "X-Session-Affinity", true},
		{"AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID", "X-SMG-Routing-Key", false},
		{"AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID", "X-Dynamo-Session-ID", false},
	} {
		on, err := config.EnvBool(getenv(h.env))
		if getenv(h.env) == "" || err != nil {
			on = h.def // unset; a value that is no boolean is warned about (checkHTTPEnv)
		}
		if on {
			out = append(out, h.header)
		}
	}
	return out
}

// affinityEnv are the variables of affinityHeaders.
var affinityEnv = []string{
	"AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID", "AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID",
	"AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID", "AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID",
}

// DefaultVideoPollInterval is AIPerf's AIPERF_HTTP_VIDEO_POLL_INTERVAL.
const DefaultVideoPollInterval = 100 * time.Millisecond

// envVideoPollInterval is AIPerf's video job polling interval, seconds.
const envVideoPollInterval = "AIPERF_HTTP_VIDEO_POLL_INTERVAL"

// videoPollInterval is the interval of v, a value of
// envVideoPollInterval: seconds within AIPerf's range (0.001-10), or
// DefaultVideoPollInterval when v is empty; ok is false (and the default
// returned) when v is not such a number.
func videoPollInterval(v string) (d time.Duration, ok bool) {
	if v == "" {
		return DefaultVideoPollInterval, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0.001 || f > 10 {
		return DefaultVideoPollInterval, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// workerRequestOptions fills the worker options that depend on the
// endpoint: multipart encoding, job polling, how images are counted, and
// the affinity headers.
func (p *Plan) workerRequestOptions(wo *worker.Options) {
	wo.AffinityHeaders = affinityHeaders(p.Env.Getenv)
	if p.Config.SageMaker() {
		// The request id is SageMaker's inference id: the join key with
		// the endpoint's data capture.
		wo.RequestIDHeaders = []string{sagemaker.HeaderInferenceID}
	}
	wo.Multipart = p.Config.RequestContentTypeFor(p.Meta.RequiresFormData) == config.ContentMultipart
	part := p.Meta.ImagePart
	wo.CountImages = func(body []byte) int { return endpoint.CountParts(body, part) }
	if poller, ok := p.Endpoint.(endpoint.Poller); ok && p.Meta.RequiresPolling {
		interval, _ := videoPollInterval(p.Env.Getenv(envVideoPollInterval))
		wo.Polling = &worker.Polling{
			Poller:   poller,
			Interval: interval,
			Timeout:  seconds(p.Config.Endpoint.TimeoutSeconds),
			Download: p.Config.Endpoint.DownloadVideoContent,
		}
	}
}

// formatPayloads assigns models to the dataset's turns (when -m names
// several) and builds every request body: a turn's RawPayload is sent as
// it is, every other turn goes through the endpoint with its own extra
// fields merged last, except a lazy trace prompt's, built when sent, and
// a deferred synthetic dataset's, built with its texts.
func (p *Plan) formatPayloads() error {
	if p.ChatTemplate != nil || p.Config.Cluster.Workers > 0 {
		// A templated count needs the body, and load workers get the
		// dataset whole: build the lazy trace prompts now.
		p.Dataset.Materialize()
	}
	if err := p.finishTurns(); err != nil {
		return err
	}
	ds := p.Dataset
	if err := assignModels(ds, p.Models, p.Config.ResolvedModelSelection(), p.Seed); err != nil {
		return usageError(err)
	}
	p.Payloads = make([][][]byte, ds.Len())
	if ds.Rows != nil {
		return nil // every body built when sent (worker)
	}
	if ds.Deferred() {
		// Synthetic prompts built in order as they are sent: each
		// conversation's bodies are built with its texts. The first is
		// built now, so that a body the endpoint cannot make is still an
		// error before the run (every synthetic conversation has the
		// same shape). A dataset no larger than what the first request
		// builds ahead anyway is built whole, as before (inputs.json
		// then written before the run).
		var first error
		ds.OnBuilt(func(c int) {
			if err := p.conversationBodies(c); err != nil && c == 0 {
				first = err
			}
		})
		if ds.Conversation(0); ds.Len() <= dataset.Lookahead+1 {
			ds.Complete()
		}
		return first
	}
	for c := range ds.Conversations {
		if err := p.conversationBodies(c); err != nil {
			return err
		}
	}
	p.countTemplatedISL()
	return nil
}

// conversationBodies builds the request bodies of conversation c's turns
// into Payloads[c] (see formatPayloads); a turn's input token count is
// then -1 where its endpoint counts none or it sends no text.
func (p *Plan) conversationBodies(c int) error {
	conv := &p.Dataset.Conversations[c]
	p.Payloads[c] = make([][]byte, len(conv.Turns))
	for t := range conv.Turns {
		turn := &conv.Turns[t]
		if turn.RawPayload != nil {
			p.Payloads[c][t] = turn.RawPayload
			continue
		}
		if turn.Prompt != nil {
			continue // built when sent (worker)
		}
		body, err := p.Endpoint.AppendPayload(nil, turn, endpoint.WithTurnExtra(&p.EOptions, turn))
		if err != nil {
			return usageError(fmt.Errorf("building the request body of %s turn %d: %w", conv.ID, t, err))
		}
		p.Payloads[c][t] = body
		if !p.Meta.TokenizesInput || noInputText(turn) {
			turn.InputTokens = -1
		}
	}
	return nil
}

// noInputText reports a turn that sends no text at all (an image-only
// request, an audio clip): as in AIPerf, its input token count is
// unknown, not zero, so ISL is absent rather than 0. An empty text is
// still text (ISL 0).
func noInputText(t *dataset.Turn) bool {
	return len(t.Texts) == 0 && t.System == "" && t.UserContext == "" && len(t.Tools) == 0
}

// buildRankingsDataset generates the rankings endpoints' synthetic data:
// one query and its passages per request (AIPerf's synthetic_rankings
// composer).
func (p *Plan) buildRankingsDataset() error {
	r := p.Config.Rankings.Spec()
	ds, err := synthesis.SyntheticRankings(synthesis.RankingsOptions{
		Entries:      p.Config.DatasetEntries(),
		PassagesMean: r.PassagesMean, PassagesStddev: r.PassagesStddev,
		PassageTokensMean: r.PassageTokensMean, PassageTokensStddev: r.PassageTokensStddev,
		QueryTokensMean: r.QueryTokensMean, QueryTokensStddev: r.QueryTokensStddev,
		Seed: p.Seed, SeedSet: p.SeedSet,
	}, p.Tokenizer)
	if err != nil {
		return usageError(fmt.Errorf("synthetic rankings dataset: %w", err))
	}
	p.Dataset = ds
	return p.formatPayloads()
}

// recordTokenizer is the tokenizer records are counted with: none for an
// endpoint that neither tokenizes its input nor produces tokens
// (audio_transcription, image_retrieval), for which AIPerf disables
// tokenization, so no token counts are reported for them.
func (p *Plan) recordTokenizer() tokenizer.Tokenizer {
	if !p.Meta.TokenizesInput && !p.Meta.ProducesTokens {
		return nil
	}
	return p.Tokenizer
}
