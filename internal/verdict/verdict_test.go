package verdict

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/sla"
)

func fixture(t *testing.T, name string) *results.Summary {
	t.Helper()
	s, err := results.ReadSummary(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sweepFixture(t *testing.T, name string) []Point {
	t.Helper()
	s, err := results.ReadSweep(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var pts []Point
	for i := range s.Points {
		c, _ := s.Points[i].Param("concurrency")
		pts = append(pts, Point{Label: s.Points[i].Label(), Concurrency: c, Metrics: &s.Points[i]})
	}
	return pts
}

// TestSingleRunThresholds puts each single-run rule on fixtures just below
// and just above its threshold.
func TestSingleRunThresholds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture   string
		useCase   UseCase
		want      Status
		checked   float64 // the value the threshold was checked on; NaN = the primary
		basis     string
		inMessage string
	}{
		{"chat_below", Chat, Warn, math.NaN(), "measured", "19.9 tokens/s, below the 20"},
		{"chat_above", Chat, OK, math.NaN(), "measured", "20.1 tokens/s"},
		{"rag_measured_above", RAG, Warn, 10.1, "measured", "measured at 4096 input tokens"},
		{"rag_measured_below", RAG, OK, 9.9, "measured", "measured at 4000 input tokens"},
		{"rag_extrapolated_above", RAG, Warn, 4096.0 / 405, "extrapolated", "extrapolated, not measured"},
		{"rag_extrapolated_below", RAG, OK, 4096.0 / 415, "extrapolated", "the run used 512-token inputs"},
		{"capacity_above", Capacity, Warn, 804.0 / 400, "derived", "2.01x its median"},
		{"capacity_below", Capacity, OK, 796.0 / 400, "derived", "1.99x its median"},
	}
	for _, tt := range tests {
		rep := Evaluate(Run{Metrics: fixture(t, tt.fixture)}, []UseCase{tt.useCase})
		if len(rep.Verdicts) != 1 {
			t.Fatalf("%s: %d verdicts", tt.fixture, len(rep.Verdicts))
		}
		v := rep.Verdicts[0]
		if v.Status != tt.want || !strings.Contains(v.Message, tt.inMessage) {
			t.Errorf("%s: %s verdict = %s %q; want %s containing %q", tt.fixture, tt.useCase, v.Status, v.Message, tt.want, tt.inMessage)
		}
		f := v.Checked
		if math.IsNaN(tt.checked) {
			f = v.Primary
		} else if f == nil || math.Abs(f.Value-tt.checked) > 1e-9 {
			t.Errorf("%s: checked = %+v; want %v", tt.fixture, f, tt.checked)
		}
		if f == nil || f.Basis != tt.basis {
			t.Errorf("%s: basis of %+v; want %s", tt.fixture, f, tt.basis)
		}
	}
}

// TestSweepThresholds: batch saturation at a 4.9% vs 5.1% gain, capacity
// at 2.01x vs 1.99x degradation.
func TestSweepThresholds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture   string
		useCase   UseCase
		want      Status
		primary   float64
		inMessage string
	}{
		{"batch_sweep_flat", Batch, Warn, 1049, "stops rising at concurrency 64 (+4.9% from 16)"},
		{"batch_sweep_rising", Batch, OK, 1051, "still rises at the highest concurrency, 64 (+5.1%)"},
		{"capacity_sweep_over", Capacity, Warn, 4000, "degrades 2.01x at concurrency 64"},
		{"capacity_sweep_within", Capacity, OK, 9000, "up to concurrency 64 (1.99x)"},
	}
	for _, tt := range tests {
		rep := EvaluateSweep(sweepFixture(t, tt.fixture), []UseCase{tt.useCase})
		v := rep.Verdicts[0]
		if v.Status != tt.want || !strings.Contains(v.Message, tt.inMessage) {
			t.Errorf("%s: %s = %s %q; want %s containing %q", tt.fixture, tt.useCase, v.Status, v.Message, tt.want, tt.inMessage)
		}
		if v.Primary == nil || v.Primary.Value != tt.primary || v.Primary.Scope != PerNode {
			t.Errorf("%s: primary = %+v; want %v per node", tt.fixture, v.Primary, tt.primary)
		}
	}
}

func TestSweepNeedsTwoPointsAndOrdersByConcurrency(t *testing.T) {
	t.Parallel()
	one := []Point{{Concurrency: 4, Metrics: sla.Table{}.Set("output_token_throughput", "avg", 100).Set("time_to_first_token", "p99", 10)}}
	rep := EvaluateSweep(one, []UseCase{Batch, Capacity, Chat})
	for _, v := range rep.Verdicts {
		if v.Status != Unknown {
			t.Errorf("%s with one point = %s; want unknown", v.UseCase, v.Status)
		}
	}
	if len(rep.Points) != 1 || len(rep.Points[0].Verdicts) != 1 || rep.Points[0].Verdicts[0].UseCase != Chat {
		t.Errorf("per-point verdicts = %+v; want chat at the one point", rep.Points)
	}
	// out of order, with a point lacking concurrency
	pts := []Point{
		{Concurrency: 16, Metrics: sla.Table{}.Set("output_token_throughput", "avg", 300)},
		{Concurrency: 0, Metrics: sla.Table{}.Set("output_token_throughput", "avg", 1)},
		{Concurrency: 1, Metrics: sla.Table{}.Set("output_token_throughput", "avg", 100)},
	}
	v := EvaluateSweep(pts, []UseCase{Batch}).Verdicts[0]
	if v.Status != OK || !strings.Contains(v.Message, "highest concurrency, 16") {
		t.Errorf("batch = %s %q; want ok at 16", v.Status, v.Message)
	}
}

func TestMissingMetricsAreUnknown(t *testing.T) {
	t.Parallel()
	rep := Evaluate(Run{Metrics: sla.Table{}}, UseCases())
	if len(rep.Verdicts) != 4 {
		t.Fatalf("%d verdicts", len(rep.Verdicts))
	}
	for _, v := range rep.Verdicts {
		if v.Status != Unknown || v.Message == "" {
			t.Errorf("%s on no metrics = %s %q; want unknown with a reason", v.UseCase, v.Status, v.Message)
		}
	}
	if rep.Derived != (Derived{}) {
		t.Errorf("derived on no metrics = %+v; want nothing", rep.Derived)
	}
}

// TestDerivedFigures uses the guide's gemma example: 100 users, 505
// tokens/s prefill per user, 5468 total and 1083 output tokens/s.
func TestDerivedFigures(t *testing.T) {
	t.Parallel()
	m := sla.Table{}.Set("prefill_throughput_per_user", "avg", 505).Set("total_token_throughput", "avg", 5468).
		Set("output_token_throughput", "avg", 1083).Set("input_token_throughput", "avg", 4390)
	d := Evaluate(Run{Metrics: m, Concurrency: 100}, nil).Derived
	if d.InputThroughput == nil || d.InputThroughput.Value != 4385 || d.InputThroughput.Scope != PerNode || d.InputThroughput.Unit != "tokens/sec" {
		t.Errorf("input throughput = %+v; want 4385 tokens/sec per node", d.InputThroughput)
	}
	if d.PrefillDemand == nil || d.PrefillDemand.Value != 50500 || d.PrefillDemand.Unit != "tokens/sec" || d.PrefillDemand.Basis != "derived" {
		t.Errorf("prefill demand = %+v; want 50500 tokens/sec derived", d.PrefillDemand)
	}
	if d.MeasuredInputThroughput == nil || d.MeasuredInputThroughput.Value != 4390 {
		t.Errorf("measured input = %+v", d.MeasuredInputThroughput)
	}
	if d.Concurrency == nil || d.Concurrency.Basis != "configured" {
		t.Errorf("concurrency = %+v", d.Concurrency)
	}
	// a rate run: Little's law from 20 requests/s at 2.5 s each
	m = sla.Table{}.Set("request_throughput", "avg", 20).Set("request_latency", "avg", 2500).Set("prefill_throughput_per_user", "avg", 100)
	d = Evaluate(Run{Metrics: m}, nil).Derived
	if d.Concurrency == nil || d.Concurrency.Value != 50 || !strings.Contains(d.Concurrency.Metric, "Little") || d.PrefillDemand.Value != 5000 {
		t.Errorf("Little's law: concurrency %+v, demand %+v; want 50 users, 5000 tokens/sec", d.Concurrency, d.PrefillDemand)
	}
	// AIPerf 0.13's effective_concurrency wins over Little's law
	m.Set("effective_concurrency", "avg", 40)
	if d = Evaluate(Run{Metrics: m}, nil).Derived; d.Concurrency.Value != 40 {
		t.Errorf("effective concurrency = %+v; want 40", d.Concurrency)
	}
}

func TestPanel(t *testing.T) {
	t.Parallel()
	m := fixture(t, "chat_below")
	out := Panel(Evaluate(Run{Metrics: m, Concurrency: 100}, []UseCase{Chat, Batch}))
	for _, want := range []string{
		"chat      WARN each user sees 19.9 tokens/s",
		"primary   output_token_throughput_per_user = 19.9 tokens/sec/user",
		"secondary time_to_first_token p99 = 900 ms",
		"batch     ?    whether output throughput still rises",
		"concurrency (users)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("panel lacks %q:\n%s", want, out)
		}
	}
}
