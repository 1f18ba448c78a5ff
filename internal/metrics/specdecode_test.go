package metrics

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// These are AIPerf 0.14's unit-test cases for the speculative-decoding
// metrics (tests/unit/metrics/test_spec_decode_metrics.py), run through
// the processor and the accumulator.

// workedExample is AIPerf's per-step accepted-draft sequence: histogram
// {0:1, 1:1, 2:2, 3:3, 4:1}, 8 steps, 18 accepted, mean length 3.25.
var workedExample = []int64{2, 3, 1, 4, 2, 0, 3, 3}

// makeSpec builds the neutral record of a per-step accepted sequence with a
// fixed draft block k (drafted = k * steps), as AIPerf's make_spec does.
func makeSpec(perStep []int64, k int64) record.SpecDecode {
	s := record.SpecDecode{Engine: "vllm", Steps: int64(len(perStep)), Drafted: k * int64(len(perStep))}
	s.Histogram = make([]int64, k+1)
	for _, j := range perStep {
		s.Histogram[j]++
		s.Accepted += j
	}
	if s.Steps == 0 {
		return record.SpecDecode{Engine: "vllm", ZeroStep: true}
	}
	s.MeanAcceptanceLength = 1 + float64(s.Accepted)/float64(s.Steps)
	s.DraftAcceptanceRate = float64(s.Accepted) / float64(s.Drafted)
	return s
}

// specRun processes one valid record per spec and summarises them.
func specRun(t *testing.T, specs ...record.SpecDecode) ([]Processed, map[string]float64) {
	t.Helper()
	reg := Builtin()
	p := newTestProcessor(t, reg, nil)
	acc := NewAccumulator(reg, reg.Select(chatStreaming(false)), nil)
	var out []Processed
	for i, s := range specs {
		r := streamRec(float64(i*100), 1, float64(i*100+10), float64(i*100+20))
		r.SpecDecode = s
		pr := p.Process(r)
		if !pr.Valid {
			t.Fatalf("record %d is not valid: %v", i, r.Error)
		}
		acc.Add(&pr)
		out = append(out, pr)
	}
	results := map[string]float64{}
	for _, res := range acc.Summarize().Results {
		if res.Stats != nil {
			results[res.Metric.Tag] = res.Stats.Avg
		} else {
			results[res.Metric.Tag] = res.Value
		}
	}
	return out, results
}

func TestSpecDecodePerRequestValues(t *testing.T) {
	t.Parallel()
	prs, _ := specRun(t, makeSpec(workedExample, 4))
	for tag, want := range map[string]float64{
		"spec_decode_steps":                 8,
		"spec_decode_accepted_draft_tokens": 18,
		"spec_decode_draft_tokens":          32,
		"spec_decode_acceptance_length":     3.25,
		"spec_decode_draft_acceptance_rate": 56.25, // 18/32 as a percent
		"spec_decode_accepted_per_verified": 0.65,  // (18+8)/(32+8)
	} {
		v, ok := valueOf(prs[0], tag)
		if !ok || !approx(v.Scalar, want) {
			t.Errorf("%s = %v (%v); want %v", tag, v.Scalar, ok, want)
		}
	}
}

// Without a spec-decode payload, and for a zero-step request, no
// per-request acceptance metric has a value.
func TestSpecDecodeAbsentRecordHasNoValues(t *testing.T) {
	t.Parallel()
	prs, results := specRun(t, record.SpecDecode{}, makeSpec(nil, 0))
	for _, pr := range prs {
		for _, tag := range []string{"spec_decode_acceptance_length", "spec_decode_draft_acceptance_rate",
			"spec_decode_accepted_per_verified", "spec_decode_steps", "spec_decode_accepted_draft_tokens", "spec_decode_draft_tokens"} {
			if v, ok := valueOf(pr, tag); ok {
				t.Errorf("%s = %v; want no value", tag, v.Scalar)
			}
		}
	}
	for _, tag := range []string{tagTotalSpecSteps, "spec_decode_token_weighted_acceptance_length"} {
		if _, ok := results[tag]; ok {
			t.Errorf("%s is present without speculation; want absent", tag)
		}
	}
}

// Two requests: the worked example (8 steps, 18 accepted, 32 drafted) and
// [1, 1, 0] (3, 2, 12): totals 11 / 20 / 44.
func TestSpecDecodeRunLevelValues(t *testing.T) {
	t.Parallel()
	_, results := specRun(t, makeSpec(workedExample, 4), makeSpec([]int64{1, 1, 0}, 4))
	for tag, want := range map[string]float64{
		tagTotalSpecSteps:                              11,
		tagTotalSpecAccepted:                           20,
		tagTotalSpecDrafted:                            44,
		"spec_decode_token_weighted_acceptance_length": 1 + 20.0/11,
		"spec_decode_overall_draft_acceptance_rate":    20.0 / 44 * 100,
	} {
		if got, ok := results[tag]; !ok || !approx(got, want) {
			t.Errorf("%s = %v (%v); want %v", tag, got, ok, want)
		}
	}
	if _, ok := results["spec_decode_zero_step_requests"]; ok {
		t.Error("spec_decode_zero_step_requests is present with no zero-step request; want absent")
	}
}

func TestSpecDecodeDerivedZeroDenominators(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	for _, tt := range []struct {
		tag string
		in  map[string]float64
	}{
		{"spec_decode_token_weighted_acceptance_length", map[string]float64{tagTotalSpecSteps: 0, tagTotalSpecAccepted: 0}},
		{"spec_decode_overall_draft_acceptance_rate", map[string]float64{tagTotalSpecDrafted: 0, tagTotalSpecAccepted: 0}},
	} {
		if v, ok := deriveWith(reg, tt.tag, tt.in); ok {
			t.Errorf("%s(%v) = %v; want no value", tt.tag, tt.in, v)
		}
	}
}

// Zero-step requests are counted beside the speculated ones and left out
// of the per-request means.
func TestSpecDecodeZeroStepRequests(t *testing.T) {
	t.Parallel()
	zero := record.SpecDecode{Engine: "vllm", ZeroStep: true}
	_, results := specRun(t, makeSpec(workedExample, 4), zero, zero)
	if got := results["spec_decode_zero_step_requests"]; got != 2 {
		t.Errorf("spec_decode_zero_step_requests = %v; want 2", got)
	}
	if got := results[tagTotalSpecSteps]; got != float64(len(workedExample)) {
		t.Errorf("total_spec_decode_steps = %v; want %d", got, len(workedExample))
	}
}

func TestSpecDecodeMetadata(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	for _, tt := range []struct {
		tag    string
		unit   Unit
		group  Group
		larger bool
	}{
		{"spec_decode_acceptance_length", UnitRatio, GroupSpecDecode, true},
		{"spec_decode_draft_acceptance_rate", UnitPercent, GroupSpecDecode, true},
		{"spec_decode_accepted_per_verified", UnitRatio, GroupSpecDecode, true},
		{"spec_decode_steps", UnitCount, GroupSpecDecode, false},
		{"spec_decode_accepted_draft_tokens", UnitTokens, GroupNone, false},
		{"spec_decode_draft_tokens", UnitTokens, GroupNone, false},
		{"spec_decode_token_weighted_acceptance_length", UnitRatio, GroupSpecDecode, true},
		{"spec_decode_overall_draft_acceptance_rate", UnitPercent, GroupSpecDecode, true},
		{"spec_decode_zero_step_requests", UnitRequests, GroupSpecDecode, false},
	} {
		m := reg.byTag[tt.tag]
		if m.displayUnit() != tt.unit || m.Group != tt.group || m.Flags.Has(FlagLargerIsBetter) != tt.larger {
			t.Errorf("%s: unit %q group %d larger-is-better %v; want %q, %d, %v",
				tt.tag, m.displayUnit(), m.Group, m.Flags.Has(FlagLargerIsBetter), tt.unit, tt.group, tt.larger)
		}
	}
	// Nothing hides the per-request metrics from the console, the files or
	// the per-record export.
	for _, tag := range []string{"spec_decode_acceptance_length", "spec_decode_draft_acceptance_rate",
		"spec_decode_accepted_per_verified", "spec_decode_steps"} {
		if f := reg.byTag[tag].Flags; f&(FlagExperimental|FlagInternal|FlagNoIndividualRecord) != 0 {
			t.Errorf("%s has hiding flags %b", tag, f)
		}
	}
	if !reg.byTag["spec_decode_zero_step_requests"].Flags.Has(FlagNoIndividualRecord) {
		t.Error("spec_decode_zero_step_requests is written per record; want aggregate only")
	}
}

// The pooled histogram sums the requests' histograms and reconciles with
// total_spec_decode_steps; warmup records and requests without
// speculation add nothing.
func TestSpecDecodePooledHistogram(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	p := newTestProcessor(t, reg, nil)
	acc := NewAccumulator(reg, reg.Select(chatStreaming(false)), nil)
	for i, s := range []record.SpecDecode{makeSpec(workedExample, 4), makeSpec([]int64{1, 1, 0}, 4), {}, makeSpec([]int64{3, 3}, 4)} {
		r := streamRec(float64(i*100), 1, float64(i*100+10))
		r.SpecDecode = s
		if i == 3 {
			r.Phase = record.Warmup
		}
		pr := p.Process(r)
		acc.Add(&pr)
	}
	s := acc.Summarize()
	if want := []int64{2, 3, 2, 3, 1}; !slices.Equal(s.SpecDecodeHistogram, want) {
		t.Errorf("pooled histogram = %v; want %v", s.SpecDecodeHistogram, want)
	}
	var steps int64
	for _, c := range s.SpecDecodeHistogram {
		steps += c
	}
	if r, ok := s.Get(tagTotalSpecSteps); !ok || r.Value != float64(steps) {
		t.Errorf("total_spec_decode_steps = %v (%v); want the histogram's %d", r.Value, ok, steps)
	}
	empty := NewAccumulator(reg, reg.Select(chatStreaming(false)), nil)
	pr := p.Process(streamRec(0, 1, 10))
	empty.Add(&pr)
	if h := empty.Summarize().SpecDecodeHistogram; h != nil {
		t.Errorf("pooled histogram without speculation = %v; want nil", h)
	}
}
