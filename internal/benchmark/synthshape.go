package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
)

// shapeSynthetic translates the conversation, prompt-shaping and sampling
// options into the synthetic dataset's Shape: turns and delays
// (cfg.Conversation), texts per request, the --seq-dist mixture, prefix
// and context prompts (cfg.Prompt); and --dataset-sampling-strategy, when
// given, replaces shuffle, AIPerf's default for synthetic data.
func (p *Plan) shapeSynthetic(o *synthesis.SyntheticOptions) {
	cfg := p.Config
	conv, pr := &cfg.Conversation, &cfg.Prompt
	batch := pr.BatchSize
	o.Shape = synthesis.Shape{
		TurnsMean:       conv.TurnsMean,
		TurnsStddev:     conv.TurnsStddev,
		TurnDelayMean:   conv.TurnDelayMean,
		TurnDelayStddev: conv.TurnDelayStddev,
		TurnDelayRatio:  conv.DelayRatio,
		BatchSize:       &batch,
		SeqDist:         seqDistPairs(pr.SequenceDistribution),
	}
	if pr.PrefixPromptsEnabled() {
		o.Shape.PrefixPoolSize, o.Shape.PrefixLength = pr.PrefixPoolSize, pr.PrefixLength
	}
	if pr.SharedSystemLength != nil {
		o.Shape.SystemLength = *pr.SharedSystemLength
	}
	if pr.UserContextLength != nil {
		o.Shape.UserContextLength = *pr.UserContextLength
	}
	if s := cfg.Dataset.SamplingStrategy; s != "" {
		p.Sampling = string(s)
	}
}

func seqDistPairs(entries []config.SeqDistEntry) []synthesis.SeqDistPair {
	if len(entries) == 0 {
		return nil
	}
	out := make([]synthesis.SeqDistPair, len(entries))
	for i, e := range entries {
		out[i] = synthesis.SeqDistPair{ISL: e.ISL, ISLStddev: e.ISLStddev, OSL: e.OSL, OSLStddev: e.OSLStddev, Probability: e.Probability}
	}
	return out
}

// inputShape is the part of an input_config dataset that shapes synthetic
// conversations, with AIPerf's keys; each is written only when it differs
// from the default, as AIPerf writes only what was set.
type inputShape struct {
	PrefixPrompts  *inputPrefixPrompts `json:"prefix_prompts,omitzero"`
	Turns          *inputMeanStddev    `json:"turns,omitzero"`
	TurnDelay      *inputMeanStddev    `json:"turn_delay,omitzero"`
	TurnDelayRatio *float64            `json:"turn_delay_ratio,omitzero"`
}

// inputMeanStddev is a normal distribution whose stddev AIPerf writes even
// when it is 0.
type inputMeanStddev struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

type inputPrefixPrompts struct {
	PoolSize           int `json:"pool_size,omitzero"`
	Length             int `json:"length,omitzero"`
	SharedSystemLength int `json:"shared_system_length,omitzero"`
	UserContextLength  int `json:"user_context_length,omitzero"`
}

type inputSeqDistEntry struct {
	ISL         inputDist `json:"isl"`
	OSL         inputDist `json:"osl"`
	Probability float64   `json:"probability"`
}

// shapeDoc fills ds's prompt-shaping keys from cfg (synthetic data only).
func shapeDoc(cfg *config.Config, ds *inputDataset) {
	if cfg.Dataset.FromFile() {
		return
	}
	pr, conv := &cfg.Prompt, &cfg.Conversation
	if pr.BatchSize != config.DefaultPromptBatchSize {
		b := pr.BatchSize
		ds.Prompts.BatchSize = &b
	}
	for _, e := range pr.SequenceDistribution {
		ds.Prompts.SequenceDistribution = append(ds.Prompts.SequenceDistribution, inputSeqDistEntry{
			ISL: inputDist{Mean: float64(e.ISL), Stddev: e.ISLStddev}, OSL: inputDist{Mean: float64(e.OSL), Stddev: e.OSLStddev},
			Probability: e.Probability,
		})
	}
	pp := inputPrefixPrompts{PoolSize: pr.PrefixPoolSize, Length: pr.PrefixLength}
	if pr.SharedSystemLength != nil {
		pp.SharedSystemLength = *pr.SharedSystemLength
	}
	if pr.UserContextLength != nil {
		pp.UserContextLength = *pr.UserContextLength
	}
	if pp != (inputPrefixPrompts{}) {
		ds.PrefixPrompts = &pp
	}
	if conv.TurnsMean != config.DefaultSessionTurnsMean || conv.TurnsStddev != 0 {
		ds.Turns = &inputMeanStddev{Mean: float64(conv.TurnsMean), Stddev: float64(conv.TurnsStddev)}
	}
	if conv.TurnDelayMean != 0 || conv.TurnDelayStddev != 0 {
		ds.TurnDelay = &inputMeanStddev{Mean: conv.TurnDelayMean, Stddev: conv.TurnDelayStddev}
	}
	if conv.DelayRatio != config.DefaultSessionDelayRatio {
		r := conv.DelayRatio
		ds.TurnDelayRatio = &r
	}
}
