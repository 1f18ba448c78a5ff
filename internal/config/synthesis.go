package config

import (
	"math"
	"strings"
)

// Synthesis reshapes a trace before replay (AIPerf's Synthesis flags);
// nil fields keep AIPerf's defaults (1, none for the maxima).
type Synthesis struct {
	SpeedupRatio         *float64 `json:"speedup_ratio,omitempty"`
	PrefixLenMultiplier  *float64 `json:"prefix_len_multiplier,omitempty"`
	PrefixRootMultiplier *int     `json:"prefix_root_multiplier,omitempty"`
	PromptLenMultiplier  *float64 `json:"prompt_len_multiplier,omitempty"`
	OutputLenMultiplier  *float64 `json:"output_len_multiplier,omitempty"`
	MaxISL               *int     `json:"max_isl,omitempty"`
	MaxOSL               *int     `json:"max_osl,omitempty"`
}

// Ratio returns the value of a multiplier, 1 when not given.
func Ratio(p *float64) float64 {
	if p == nil {
		return 1
	}
	return *p
}

// Transforms reports whether a multiplier differs from its default, which
// is when AIPerf runs its Synthesizer.
func (s *Synthesis) Transforms() bool {
	return Ratio(s.SpeedupRatio) != 1 || Ratio(s.PrefixLenMultiplier) != 1 || Ratio(s.PromptLenMultiplier) != 1 ||
		Ratio(s.OutputLenMultiplier) != 1 || (s.PrefixRootMultiplier != nil && *s.PrefixRootMultiplier != 1)
}

// Set reports whether any synthesis option is given with effect.
func (s *Synthesis) Set() bool { return s.Transforms() || s.MaxISL != nil || s.MaxOSL != nil }

// traceDatasetTypes are the --custom-dataset-type values synthesis
// applies to (AIPerf's is_trace loaders).
var traceDatasetTypes = []CustomDatasetType{"mooncake_trace", "bailian_trace", "burst_gpt_trace", "baseten_trace",
	"sagemaker_data_capture", "tracelab", DatasetWekaTrace}

// IsTraceDataset reports whether a --custom-dataset-type is a trace format.
func IsTraceDataset(t CustomDatasetType) bool { return contains(traceDatasetTypes, t) }

// validateSynthesis checks the Synthesis flags' ranges and that they go
// with a trace dataset, with AIPerf's rules.
func (c *Config) validateSynthesis(p *problems) {
	s := &c.Dataset.Synthesis
	for _, f := range []struct {
		flag      string
		v         *float64
		allowZero bool
	}{
		{"--synthesis-speedup-ratio", s.SpeedupRatio, false},
		{"--synthesis-prefix-len-multiplier", s.PrefixLenMultiplier, false},
		{"--synthesis-prompt-len-multiplier", s.PromptLenMultiplier, false},
		{"--synthesis-output-len-multiplier", s.OutputLenMultiplier, true},
	} {
		switch {
		case f.v == nil:
		case math.IsNaN(*f.v) || math.IsInf(*f.v, 0):
			p.add(f.flag, "must be a finite number, got %v", *f.v)
		case f.allowZero && *f.v < 0:
			p.add(f.flag, "must be >= 0, got %v", *f.v)
		case !f.allowZero && *f.v <= 0:
			p.add(f.flag, "must be > 0, got %v", *f.v)
		}
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{{"--synthesis-prefix-root-multiplier", s.PrefixRootMultiplier}, {"--synthesis-max-isl", s.MaxISL}, {"--synthesis-max-osl", s.MaxOSL}} {
		if f.v != nil && *f.v < 1 {
			p.add(f.flag, "must be >= 1, got %d", *f.v)
		}
	}
	if !s.Set() {
		return
	}
	d := &c.Dataset
	public := d.ResolvedPublic()
	flag := s.firstFlag()
	switch {
	case !d.FromFile():
		p.add(flag, "synthesis options only apply to trace datasets (--input-file with a trace format, or a Weka --public-dataset); this run is synthetic")
	case d.CustomType != "" && !IsTraceDataset(d.CustomType):
		p.add(flag, "synthesis options only apply to trace datasets, not --custom-dataset-type %s", d.CustomType)
	case public != "" && !strings.HasPrefix(string(public), "semianalysis_cc_traces_weka") && public != PublicWekaHF:
		p.add(flag, "synthesis options only apply to trace datasets, not --public-dataset %s", public)
	}
}

// firstFlag names the first synthesis option given.
func (s *Synthesis) firstFlag() string {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"--synthesis-speedup-ratio", s.SpeedupRatio != nil}, {"--synthesis-prefix-len-multiplier", s.PrefixLenMultiplier != nil},
		{"--synthesis-prefix-root-multiplier", s.PrefixRootMultiplier != nil}, {"--synthesis-prompt-len-multiplier", s.PromptLenMultiplier != nil},
		{"--synthesis-output-len-multiplier", s.OutputLenMultiplier != nil}, {"--synthesis-max-isl", s.MaxISL != nil},
	} {
		if f.set {
			return f.name
		}
	}
	return "--synthesis-max-osl"
}
