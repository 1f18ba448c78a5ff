package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/dataset/public"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// publicOptions translates the configuration into a public dataset load.
func (p *Plan) publicOptions() public.Options {
	c := p.Config
	d := &c.Dataset
	o := public.Options{
		Subset:        d.HFSubset,
		WekaRepo:      d.HFWekaDataset,
		Tokenizer:     p.Tokenizer,
		OSLSet:        c.Input.OutputTokens.Mean != nil,
		Models:        p.Models,
		Seed:          p.Seed,
		SeedSet:       p.SeedSet,
		FixedSchedule: c.Replay.FixedSchedule,
		IgnoreDelays:  d.IgnoreTraceDelays,
		Weka:          p.wekaOptions(),
		Getenv:        p.Env.Getenv,
	}
	if len(d.Filters) > 0 {
		o.Filters = map[string]string{}
		for _, f := range d.Filters {
			o.Filters[f.Key] = f.Value
		}
	}
	// Streaming datasets are read up to the run's request count, else the
	// dataset's entries, as AIPerf caps them.
	switch {
	case c.Load.RequestCount != nil:
		o.Limit = *c.Load.RequestCount
	case c.Conversation.NumSessions != nil:
		o.Limit = *c.Conversation.NumSessions
	case c.Input.NumDatasetEntries != nil:
		o.Limit = *c.Input.NumDatasetEntries
	}
	if n := c.Input.NumDatasetEntries; n != nil {
		o.Entries = *n
	} else if n := c.Conversation.NumSessions; n != nil {
		o.Entries = *n
	}
	return o
}

// basetenOptions translates the configuration into baseten_trace replay
// options. The loader applies --replay-speedup itself, before the idle-gap
// cap (which is in replay seconds, as AIPerf's), so the replay does not
// apply it again (see replaySpeedup).
func (p *Plan) basetenOptions() loader.BasetenOptions {
	c := p.Config
	r := &c.Shape.Replay
	o := loader.BasetenOptions{
		ClosedLoop:    r.ClosedLoop,
		Strict:        r.Strict,
		OmitKVHints:   r.OmitKVHints,
		NoMinTokens:   r.NoForceMinTokens,
		SessionColumn: p.Env.Getenv("AIPERF_DATASET_BASETEN_SESSION_COLUMN"),
	}
	if s := r.MaxIdleGapCapSeconds; s != nil {
		o.MaxIdleGap = seconds(*s)
	}
	if r.Speedup != nil {
		o.Speedup = *r.Speedup
	}
	if v := c.Dataset.TraceSessionSampleRatio; v != nil {
		o.SampleRatio = *v
	}
	return o
}

// wekaOptions translates the configuration into Weka trace replay options.
func (p *Plan) wekaOptions() loader.WekaOptions {
	c := p.Config
	d := &c.Dataset
	o := loader.WekaOptions{
		IgnoreDelays:  d.IgnoreTraceDelays,
		ThinkTimeOnly: d.UseThinkTimeOnly,
		Models:        p.Models,
		Seed:          p.Seed,
	}
	if d.BlockSize != nil {
		o.BlockSize = *d.BlockSize
	}
	if v := d.Synthesis.MaxISL; v != nil {
		o.MaxISL = *v
	}
	if v := d.Synthesis.MaxOSL; v != nil {
		o.MaxOSL = *v
	}
	if d.MaxContextLength != nil {
		o.MaxContext = *d.MaxContextLength
	}
	if n := c.Input.NumDatasetEntries; n != nil {
		o.Entries = *n
	}
	if s := c.Conversation.InterTurnDelayCapSeconds; s != nil {
		o.DelayCap = seconds(*s)
	}
	if s := c.Shape.TraceIdleGapCapSeconds; s != nil && c.AgenticReplay() {
		o.IdleGapCap = seconds(*s) // the whole trace tree's timeline, as AIPerf's loader compresses it
	}
	if v := c.Replay.StartOffset; v != nil {
		d := time.Duration(*v) * time.Millisecond
		o.StartOffset = &d
	}
	if v := c.Replay.EndOffset; v != nil {
		d := time.Duration(*v) * time.Millisecond
		o.EndOffset = &d
	}
	return o
}

// systemPrompt returns the verbatim system prompt (--system-prompt, or the
// content of --system-prompt-file), "" when none is given.
func (p *Plan) systemPrompt() (string, error) {
	pr := &p.Config.Prompt
	if pr.SystemPromptFile == "" {
		return pr.SystemPrompt, nil
	}
	data, err := os.ReadFile(pr.SystemPromptFile)
	if err != nil {
		return "", fmt.Errorf("--system-prompt-file: %w", err)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("--system-prompt-file %s: not UTF-8 text", pr.SystemPromptFile)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", errors.New("--system-prompt-file " + pr.SystemPromptFile + ": the file is empty")
	}
	return string(data), nil
}

// finishTurns applies what AIPerf's composers add to every dataset once it
// is built: the verbatim system prompt ahead of each conversation's own
// system message, and, for file and public datasets, a max tokens drawn
// from --osl for turns that set none. Input token counts include the
// system prompt.
func (p *Plan) finishTurns() error {
	sys, err := p.systemPrompt()
	if err != nil {
		return usageError(err)
	}
	in := p.Config.Input
	fillOSL := p.Config.Dataset.FromFile() && in.OutputTokens.Mean != nil && *in.OutputTokens.Mean > 0
	if sys == "" && !fillOSL {
		return nil
	}
	osl := synthesis.NewMaxTokens(p.Seed, float64(derefInt(in.OutputTokens.Mean)), in.OutputTokens.Stddev)
	p.Dataset.Expand()
	for c := range p.Dataset.Conversations {
		conv := &p.Dataset.Conversations[c]
		for t := range conv.Turns {
			turn := &conv.Turns[t]
			if turn.RawPayload != nil {
				continue // sent verbatim
			}
			if fillOSL && turn.MaxTokens == 0 {
				turn.MaxTokens = osl.Next()
			}
			if sys == "" {
				continue
			}
			if turn.System == "" {
				turn.System = sys
			} else {
				turn.System = sys + "\n\n" + turn.System
			}
			if p.Tokenizer != nil && turn.InputTokens >= 0 {
				turn.InputTokens = p.Tokenizer.Count(dataset.JoinInputs(turn))
			}
		}
	}
	return nil
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// promptCorpus builds the --prompt-corpus corpus; nil when the flag is not
// given (each dataset then uses its default).
func (p *Plan) promptCorpus() (*synthesis.PromptCorpus, error) {
	pr := &p.Config.Prompt
	if pr.Corpus == "" || p.Tokenizer == nil {
		return nil, nil
	}
	c, err := synthesis.NewPromptCorpus(pr.Corpus, pr.RandomCorpusStyle, p.Tokenizer)
	if err != nil {
		return nil, usageError(fmt.Errorf("--prompt-corpus: %w", err))
	}
	return c, nil
}

// shapePromptSource sets the synthetic corpus and the --random-range-ratio
// window; it runs after the special tokens are known.
func (p *Plan) shapePromptSource(o *synthesis.SyntheticOptions) error {
	c, err := p.promptCorpus()
	if err != nil {
		return err
	}
	o.Corpus = c
	pr := &p.Config.Prompt
	if r := pr.RandomRangeRatio; r != nil {
		o.Shape.RangeRatio = &synthesis.RangeRatio{ISL: r.Input, OSL: r.Output, Style: pr.RandomCorpusStyle, Special: o.PromptSpecialTokens}
	}
	p.compensateCacheBust(o)
	return nil
}

// compensateCacheBust shortens synthetic prompts by the cache-bust
// marker's token cost, as AIPerf does, so the wire ISL stays --isl: the
// shared system prompt when a system target's marker lands on it, else
// each conversation's first user turn. A verbatim --system-prompt takes
// the marker on top (its text is the user's).
func (p *Plan) compensateCacheBust(o *synthesis.SyntheticOptions) {
	pr := &p.Config.Prompt
	if !pr.CacheBustEnabled() || p.Tokenizer == nil {
		return
	}
	cost := worker.MarkerTokenCost(pr.CacheBust, p.Tokenizer.Count)
	systemTarget := pr.CacheBust == worker.BustSystemPrefix || pr.CacheBust == worker.BustSystemSuffix
	hasSystem := o.Shape.SystemLength > 0 || pr.SystemPrompt != "" || pr.SystemPromptFile != ""
	switch {
	case systemTarget && hasSystem:
		if o.Shape.SystemLength > 0 {
			o.Shape.SystemLength = max(1, o.Shape.SystemLength-cost)
		}
	default:
		o.FirstTurnMarker = cost
	}
}

// checkPromptSource rejects the prompt-source options the endpoint cannot
// carry, with AIPerf's rules: a verbatim system prompt needs an endpoint
// that sends system messages, --cache-bust one that supports it.
func (p *Plan) checkPromptSource() []error {
	var errs []error
	pr := &p.Config.Prompt
	if (pr.SystemPrompt != "" || pr.SystemPromptFile != "") && !p.Meta.ConsumesSystemMessage {
		errs = append(errs, fmt.Errorf("--system-prompt/--system-prompt-file: endpoint type %s has no system role, so the text would never reach the server", p.Meta.Type))
	}
	if pr.CacheBustEnabled() && !p.Meta.SupportsCacheBust {
		errs = append(errs, fmt.Errorf("--cache-bust: endpoint type %s does not support cache-bust markers", p.Meta.Type))
	}
	return errs
}

// cacheBust is the run's --cache-bust marking; nil when off.
func (p *Plan) cacheBust(benchmarkID string) *worker.CacheBust {
	if !p.Config.Prompt.CacheBustEnabled() {
		return nil
	}
	return &worker.CacheBust{Target: p.Config.Prompt.CacheBust, BenchmarkID: benchmarkID, Endpoint: p.Endpoint, EOptions: &p.EOptions}
}

// synthesis translates the Synthesis flags for the trace loaders.
func (p *Plan) synthesis() loader.Synthesis {
	s := &p.Config.Dataset.Synthesis
	o := loader.Synthesis{
		Transform:            s.Transforms(),
		SpeedupRatio:         config.Ratio(s.SpeedupRatio),
		PrefixLenMultiplier:  config.Ratio(s.PrefixLenMultiplier),
		PromptLenMultiplier:  config.Ratio(s.PromptLenMultiplier),
		OutputLenMultiplier:  config.Ratio(s.OutputLenMultiplier),
		PrefixRootMultiplier: 1,
	}
	if v := s.PrefixRootMultiplier; v != nil {
		o.PrefixRootMultiplier = *v
	}
	if v := s.MaxISL; v != nil {
		o.MaxISL = *v
	}
	if v := s.MaxOSL; v != nil {
		o.MaxOSL = *v
	}
	return o
}

// separatorToken is the tokenizer's block-separation token (AIPerf's
// block_separation_token_id): its BOS token, else its EOS token, as
// tokenizer_config.json names them (the built-in o200k tokenizer: its
// <|endoftext|>, 199999); nil when it has neither.
func (p *Plan) separatorToken() *int {
	if p.Tokenizer == nil {
		return nil
	}
	if p.TokenizerConfig == nil {
		if strings.HasPrefix(p.Tokenizer.Name(), "builtin") {
			id := builtinEOT
			return &id
		}
		return nil
	}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(p.TokenizerConfig, &cfg) != nil {
		return nil
	}
	for _, key := range []string{"bos_token", "eos_token"} {
		tok := specialTokenContent(cfg[key])
		if tok == "" {
			continue
		}
		if ids := p.Tokenizer.Encode(tok); len(ids) == 1 {
			return &ids[0]
		}
	}
	return nil
}

// builtinEOT is o200k_base's <|endoftext|> (tiktoken's eot_token).
const builtinEOT = 199999

// specialTokenContent reads a tokenizer_config.json special token: a
// string, or an AddedToken object's "content"; "" for null or absent.
func specialTokenContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content
	}
	return ""
}

// skipsInputsJSON reports a dataset AIPerf writes no inputs.json for: the
// trace and verbatim formats (mooncake, bailian, burst_gpt, sagemaker,
// raw_payload, inputs_json, weka, tracelab, baseten) and the Weka public
// datasets, whose requests are their source replayed.
func (p *Plan) skipsInputsJSON() bool {
	switch p.DatasetType {
	case loader.TypeMooncakeTrace, loader.TypeBailianTrace, loader.TypeBurstGPTTrace, loader.TypeSageMakerDataCapture,
		loader.TypeRawPayload, loader.TypeInputsJSON, loader.TypeWekaTrace, loader.TypeTraceLab, loader.TypeBasetenTrace:
		return true
	}
	pub := p.Config.Dataset.ResolvedPublic()
	return pub == config.PublicWekaHF || strings.HasPrefix(string(pub), "semianalysis_cc_traces_weka")
}
