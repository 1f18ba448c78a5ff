package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// These are AIPerf 0.14's unit-test cases for e2e_normalized_interactivity
// (tests/unit/metrics/test_e2e_normalized_interactivity.py), run through
// the per-record sample and the accumulator as a real run computes them.

const (
	tagInteractivityP75 = "e2e_normalized_interactivity_p75"
	tagInteractivityP90 = "e2e_normalized_interactivity_p90"
)

// interactivityRequest is one request's inputs in AIPerf's test units:
// seconds and tokens. A negative ttft or isl leaves the value absent.
type interactivityRequest struct {
	latencyS, osl, ttftS, isl float64
}

// summarizeInteractivity folds the requests through the sample metric and
// an accumulator, and returns the two percentiles (ok false when absent).
func summarizeInteractivity(t *testing.T, reqs []interactivityRequest) (p75, p90 float64, ok75, ok90 bool) {
	t.Helper()
	reg := Builtin()
	sample := reg.byTag[tagE2ESecondsPerToken]
	var selected []*Metric
	for _, tag := range []string{tagE2ESecondsPerToken, tagInteractivityP75, tagInteractivityP90} {
		selected = append(selected, reg.byTag[tag])
	}
	acc := NewAccumulator(reg, selected, nil)
	for _, r := range reqs {
		in := map[string]float64{tagRequestLatency: r.latencyS * 1e9, tagOSL: r.osl}
		if r.ttftS >= 0 {
			in[tagTTFT] = r.ttftS * 1e9
		}
		if r.isl >= 0 {
			in[tagISL] = r.isl
		}
		p := &Processed{Record: &record.Record{}, Valid: true}
		if v, ok := recordWith(reg, tagE2ESecondsPerToken, DefaultThresholds(), in); ok {
			p.Values = append(p.Values, Value{Metric: sample, Scalar: v})
		}
		acc.Add(p)
	}
	for _, res := range acc.Summarize().Results {
		switch res.Metric.Tag {
		case tagInteractivityP75:
			p75, ok75 = res.Value, true
		case tagInteractivityP90:
			p90, ok90 = res.Value, true
		}
	}
	return p75, p90, ok75, ok90
}

// requests pairs latencies (s) and OSLs with AIPerf's fixture defaults:
// TTFT 0.5 s, ISL 100.
func requests(latencyS, osl []float64) []interactivityRequest {
	out := make([]interactivityRequest, len(latencyS))
	for i := range latencyS {
		out[i] = interactivityRequest{latencyS: latencyS[i], osl: osl[i], ttftS: 0.5, isl: 100}
	}
	return out
}

// infxQuantile is InferenceX's quantile (agentic-shared.ts), written out
// independently of package stats: numpy-linear interpolation over an
// ascending slice, q in [0, 1].
func infxQuantile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := float64(len(sorted)-1) * q
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func TestInteractivityIsInverseOfRatioPercentile(t *testing.T) {
	t.Parallel()
	// Ratios 0.01, 0.02, 0.03, 0.04, 0.10 s/token: numpy's p90 is 0.076
	// and its p75 0.04.
	p75, p90, ok75, ok90 := summarizeInteractivity(t, requests([]float64{1, 2, 3, 4, 10}, []float64{100, 100, 100, 100, 100}))
	if !ok75 || !ok90 || !approx(p90, 1/0.076) || !approx(p75, 25) {
		t.Errorf("p75, p90 = %v (%v), %v (%v); want 25, %v", p75, ok75, p90, ok90, 1/0.076)
	}
}

func TestInteractivityGoldenParityWithInferenceX(t *testing.T) {
	t.Parallel()
	lat := []float64{0.7, 1.3, 2.9, 3.1, 5.5, 8.2, 0.4}
	osl := []float64{50, 120, 200, 30, 512, 64, 8}
	var ratios []float64
	for i := range lat {
		ratios = append(ratios, lat[i]/osl[i])
	}
	slices.Sort(ratios)
	p75, p90, _, _ := summarizeInteractivity(t, requests(lat, osl))
	if want := 1 / infxQuantile(ratios, 0.90); !approx(p90, want) {
		t.Errorf("p90 = %v; want %v", p90, want)
	}
	if want := 1 / infxQuantile(ratios, 0.75); !approx(p75, want) {
		t.Errorf("p75 = %v; want %v", p75, want)
	}
}

func TestInteractivitySlowTailIsNotPercentileOfRate(t *testing.T) {
	t.Parallel()
	lat := []float64{1, 2, 3, 4, 10}
	_, p90, _, _ := summarizeInteractivity(t, requests(lat, []float64{100, 100, 100, 100, 100}))
	var rates []float64
	for _, l := range lat {
		rates = append(rates, 100/l)
	}
	slices.Sort(rates)
	if naive := infxQuantile(rates, 0.9); !(p90 < naive) {
		t.Errorf("p90 = %v; want below the naive rate percentile %v (the slow tail)", p90, naive)
	}
}

func TestInteractivityFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reqs     []interactivityRequest
		p75, p90 float64
	}{
		// The third request is dropped: ratios 0.01 and 0.02 survive.
		{"zero latency", requests([]float64{1, 2, 0}, []float64{100, 100, 100}), 1 / 0.0175, 1 / 0.019},
		{"zero OSL", requests([]float64{1, 2, 3}, []float64{100, 100, 0}), 1 / 0.0175, 1 / 0.019},
		// TTFT <= 0 drops the second, ISL <= 0 the third: only 0.01 is left.
		{"zero TTFT and ISL", []interactivityRequest{
			{1, 100, 0.5, 100}, {2, 100, 0, 100}, {3, 100, 0.5, 0},
		}, 100, 100},
		// A non-streaming run has no TTFT and no gate on it.
		{"no TTFT measured", []interactivityRequest{
			{1, 100, -1, 100}, {2, 100, -1, 100},
		}, 1 / 0.0175, 1 / 0.019},
		// A failed request has no latency or OSL and is not a sample (the
		// accumulator never sees a value for it).
		{"failed requests", []interactivityRequest{
			{2, 100, 0.05, 100}, {2, 100, 0.05, 100}, {2, 100, 0.05, 100}, {math.NaN(), math.NaN(), -1, -1},
		}, 50, 50},
	}
	for _, tt := range tests {
		p75, p90, ok75, ok90 := summarizeInteractivity(t, tt.reqs)
		if !ok75 || !ok90 || !approx(p75, tt.p75) || !approx(p90, tt.p90) {
			t.Errorf("%s: p75, p90 = %v (%v), %v (%v); want %v, %v", tt.name, p75, ok75, p90, ok90, tt.p75, tt.p90)
		}
	}
}

func TestInteractivityAbsentWithoutSamples(t *testing.T) {
	t.Parallel()
	for name, reqs := range map[string][]interactivityRequest{
		"no requests":    nil,
		"no valid ratio": requests([]float64{0, 0}, []float64{100, 100}),
	} {
		if _, _, ok75, ok90 := summarizeInteractivity(t, reqs); ok75 || ok90 {
			t.Errorf("%s: got a value; want none", name)
		}
	}
}

// A tiny latency over a huge OSL underflows the ratio: the reciprocal would
// be infinite, and no non-finite value is ever reported.
func TestInteractivityExtremeValuesStayFinite(t *testing.T) {
	t.Parallel()
	p75, p90, ok75, ok90 := summarizeInteractivity(t, requests([]float64{1e-300, 1e-300, 1e-300}, []float64{1e9, 1e9, 1e9}))
	if (ok75 && math.IsInf(p75, 0)) || (ok90 && math.IsInf(p90, 0)) {
		t.Errorf("p75, p90 = %v, %v; want finite or absent", p75, p90)
	}
}

func TestInteractivityMetadata(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	for _, tag := range []string{tagInteractivityP75, tagInteractivityP90} {
		m := reg.byTag[tag]
		if m.displayUnit() != UnitTokensPerSecUser || !m.Flags.Has(FlagLargerIsBetter) || m.Group != GroupNone || m.Hidden() {
			t.Errorf("%s: unit %q flags %b group %d hidden %v; want tokens/sec/user, larger is better, no console table, exported",
				tag, m.displayUnit(), m.Flags, m.Group, m.Hidden())
		}
	}
	if !reg.byTag[tagE2ESecondsPerToken].Hidden() {
		t.Errorf("%s is exported; want it internal", tagE2ESecondsPerToken)
	}
}

// TTFT and ISL gate the sample without being its dependencies, so they
// must be computed before it on every record.
func TestInteractivityGatesFollowTheirInputs(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	s := reg.byTag[tagE2ESecondsPerToken].idx
	for _, gate := range []string{tagTTFT, tagISL} {
		if reg.byTag[gate].idx > s {
			t.Errorf("%s is computed after %s; want before", gate, tagE2ESecondsPerToken)
		}
	}
}
