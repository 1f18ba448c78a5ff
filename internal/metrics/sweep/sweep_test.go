package sweep

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// reference is testdata/reference.json: AIPerf 0.13's curves and
// statistics for fixed records (testdata/gen_reference.py). JSON null is
// NaN.
type reference struct {
	Name    string
	ICL     bool
	Records []struct {
		Start, Gen, End, ISL, OSL *float64
		ICL                       []float64
	}
	Concurrency, TokensInFlight struct{ TS, Val []float64 } `json:"-"`
	Conc                        struct{ TS, Val []float64 } `json:"concurrency"`
	TIF                         struct{ TS, Val []float64 } `json:"tokens_in_flight"`
	Windows                     []struct {
		W0, W1  float64
		Metrics map[string]map[string]*float64
	}
}

func loadReference(t *testing.T) []reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) == 0 {
		t.Fatal("no reference cases")
	}
	return refs
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func (r *reference) records() []Record {
	out := make([]Record, len(r.Records))
	for i, x := range r.Records {
		out[i] = Record{Start: val(x.Start), Gen: val(x.Gen), End: val(x.End), ISL: val(x.ISL), OSL: val(x.OSL), ICL: x.ICL}
	}
	return out
}

// close reports whether a and b agree to 1e-9 relative (the sums run in
// the same order, so only the last bits of float rounding may differ), or
// both are NaN.
func close(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestCurvesMatchAIPerf(t *testing.T) {
	t.Parallel()
	for _, ref := range loadReference(t) {
		c := Build(ref.records(), ref.ICL)
		for _, cmp := range []struct {
			name string
			got  Step
			want struct{ TS, Val []float64 }
		}{{"concurrency", c.Concurrency, ref.Conc}, {"tokens_in_flight", c.TokensInFlight, ref.TIF}} {
			if len(cmp.got.TS) != len(cmp.want.TS) {
				t.Errorf("%s: %s has %d events, want %d", ref.Name, cmp.name, len(cmp.got.TS), len(cmp.want.TS))
				continue
			}
			for i := range cmp.got.TS {
				// Timestamps come from the same additions in the same order:
				// they must be bit-identical.
				if cmp.got.TS[i] != cmp.want.TS[i] || !close(cmp.got.Val[i], cmp.want.Val[i]) {
					t.Errorf("%s: %s event %d = (%v, %v), want (%v, %v)", ref.Name, cmp.name, i,
						cmp.got.TS[i], cmp.got.Val[i], cmp.want.TS[i], cmp.want.Val[i])
					break
				}
			}
		}
		for _, w := range ref.Windows {
			got := c.Compute(w.W0, w.W1)
			for i, m := range Metrics() {
				want, ok := w.Metrics[m.Tag]
				if !ok {
					t.Fatalf("%s: reference lacks %s", ref.Name, m.Tag)
				}
				g := got[i]
				for _, kv := range []struct {
					k string
					v float64
				}{{"avg", g.Avg}, {"min", g.Min}, {"max", g.Max}, {"p50", g.P50}, {"p90", g.P90}, {"p95", g.P95}, {"p99", g.P99}, {"std", g.Std}} {
					if !close(kv.v, val(want[kv.k])) {
						t.Errorf("%s [%g, %g]: %s %s = %v, want AIPerf's %v", ref.Name, w.W0, w.W1, m.Tag, kv.k, kv.v, val(want[kv.k]))
					}
				}
			}
			if len(w.Metrics) != len(Metrics()) {
				t.Errorf("%s: AIPerf computes %d sweep metrics, Metrics lists %d", ref.Name, len(w.Metrics), len(Metrics()))
			}
		}
	}
}

// TestEmptyIsZero checks AIPerf's convention: a curve without events, or a
// window of no length, has all-zero statistics, not missing ones.
func TestEmptyIsZero(t *testing.T) {
	t.Parallel()
	if s := TimeWeighted(Step{}, 0, 10); s != (Stats{}) {
		t.Errorf("empty curve: %+v", s)
	}
	s := Concurrency([]float64{1}, []float64{2})
	if st := TimeWeighted(s, 5, 5); st != (Stats{}) {
		t.Errorf("empty window: %+v", st)
	}
	if st := ActiveWeighted(s, Step{}, 0, 10); st != (Stats{}) {
		t.Errorf("empty mask: %+v", st)
	}
	// One request over half the window: concurrency 1 half the time.
	st := TimeWeighted(s, 0, 2)
	if st.Avg != 0.5 || st.Min != 0 || st.Max != 1 || st.P50 != 0 || st.P90 != 1 || st.Std != 0.5 {
		t.Errorf("half-busy window: %+v", st)
	}
}
