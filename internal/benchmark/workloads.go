package benchmark

import (
	"os"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/public"
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
		Getenv:        os.Getenv,
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
func (p *Plan) basetenOptions() dataset.BasetenOptions {
	c := p.Config
	r := &c.Shape.Replay
	o := dataset.BasetenOptions{
		ClosedLoop:    r.ClosedLoop,
		Strict:        r.Strict,
		OmitKVHints:   r.OmitKVHints,
		NoMinTokens:   r.NoForceMinTokens,
		SessionColumn: os.Getenv("AIPERF_DATASET_BASETEN_SESSION_COLUMN"),
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
func (p *Plan) wekaOptions() dataset.WekaOptions {
	c := p.Config
	d := &c.Dataset
	o := dataset.WekaOptions{
		IgnoreDelays:  d.IgnoreTraceDelays,
		ThinkTimeOnly: d.UseThinkTimeOnly,
		Models:        p.Models,
		Seed:          p.Seed,
	}
	if d.BlockSize != nil {
		o.BlockSize = *d.BlockSize
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
