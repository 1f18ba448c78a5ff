package sla

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Filter
		wantErr string
	}{
		{in: "time_to_first_token:p95:lt:200", want: Filter{"time_to_first_token", "p95", LT, 200}},
		{in: "request_error_rate:avg:lt:1", want: Filter{"request_error_rate", "avg", LT, 1}},
		{in: "output_token_throughput:avg:ge:1e3", want: Filter{"output_token_throughput", "avg", GE, 1000}},
		// aliases are stored canonical
		{in: "ttft:p99:le:50.5", want: Filter{"time_to_first_token", "p99", LE, 50.5}},
		{in: "tpot:max:gt:-1", want: Filter{"inter_token_latency", "max", GT, -1}},
		{in: "ttft:p95:lt", wantErr: "expected 4 colon-separated parts"},
		{in: "a:b:c:d:e", wantErr: "got 5"},
		{in: "ttft:p96:lt:1", wantErr: `unknown stat "p96"`},
		{in: "ttft:p95:eq:1", wantErr: `unknown op "eq"`},
		{in: "ttft:p95:lt:abc", wantErr: `threshold "abc" is not a number`},
		{in: "ttft:p95:lt:inf", wantErr: "finite"},
		{in: "ttft:p95:lt:NaN", wantErr: "finite"},
		{in: ":p95:lt:1", wantErr: "metric tag must not be empty"},
		// whitespace is not trimmed, as AIPerf
		{in: "ttft: p95:lt:1", wantErr: `unknown stat " p95"`},
		// every problem at once
		{in: ":p0:xx:1", wantErr: "metric tag must not be empty\nunknown stat \"p0\""},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v; want it to contain %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestOpHolds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op    Op
		v, th float64
		want  bool
	}{
		{LT, 1, 2, true}, {LT, 2, 2, false}, {LE, 2, 2, true}, {LE, 3, 2, false},
		{GT, 3, 2, true}, {GT, 2, 2, false}, {GE, 2, 2, true}, {GE, 1, 2, false},
		{LT, math.NaN(), 2, false}, {GE, math.NaN(), 2, false}, {Op("eq"), 2, 2, false},
	}
	for _, tt := range tests {
		if got := tt.op.Holds(tt.v, tt.th); got != tt.want {
			t.Errorf("%s.Holds(%v, %v) = %v; want %v", tt.op, tt.v, tt.th, got, tt.want)
		}
	}
}

func TestMargin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f      Filter
		v      float64
		want   float64
		wantOK bool
	}{
		{Filter{"ttft", "p95", LT, 200}, 100, 0.5, true},  // half the budget left
		{Filter{"ttft", "p95", LT, 200}, 300, -0.5, true}, // 50 % over
		{Filter{"tput", "avg", GT, 100}, 150, 0.5, true},  // lower bound: above is headroom
		{Filter{"x", "avg", GE, -10}, -5, 0.5, true},      // negative threshold scales by |t|
		{Filter{"x", "avg", LT, 0}, 1, 0, false},
		{Filter{"x", "avg", LT, 1}, math.NaN(), 0, false},
	}
	for _, tt := range tests {
		got, ok := tt.f.Margin(tt.v)
		if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v.Margin(%v) = %v, %v; want %v, %v", tt.f, tt.v, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestParseTier(t *testing.T) {
	t.Parallel()
	tier, err := ParseTier("fast:output_token_throughput:avg:gt:300, time_to_first_token:p95:lt:5000", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Tier{Label: "fast", Filters: []Filter{{"output_token_throughput", "avg", GT, 300}, {"time_to_first_token", "p95", LT, 5000}}}
	if tier.Label != want.Label || len(tier.Filters) != 2 || tier.Filters[0] != want.Filters[0] || tier.Filters[1] != want.Filters[1] {
		t.Errorf("ParseTier = %+v; want %+v", tier, want)
	}
	auto, err := ParseTier("ttft:p95:lt:100", 2)
	if err != nil || auto.Label != "tier_3" || len(auto.Filters) != 1 {
		t.Errorf("ParseTier(unlabelled, 2) = %+v, %v; want label tier_3 and one filter", auto, err)
	}
	for in, wantErr := range map[string]string{
		"":                        "must not be empty",
		"fast":                    "label before ':' must not be empty",
		":ttft:p95:lt:1":          "label before ':' must not be empty",
		"fast:":                   "has no filter",
		"fast:ttft:p95:lt:x":      `tier "fast"`,
		"fast:ttft:p95:lt:1,oops": `"oops": expected 4`,
	} {
		if _, err := ParseTier(in, 0); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ParseTier(%q) error = %v; want it to contain %q", in, err, wantErr)
		}
	}
}

func TestValidateTiers(t *testing.T) {
	t.Parallel()
	one := Tier{Label: "a", Filters: []Filter{{"x", "avg", LT, 1}}}
	two := Tier{Label: "b", Filters: one.Filters}
	if err := ValidateTiers([]Tier{one, two}); err != nil {
		t.Errorf("two distinct tiers: %v", err)
	}
	if err := ValidateTiers([]Tier{one}); err == nil || !strings.Contains(err.Error(), "between 2 and 10 tiers, got 1") {
		t.Errorf("one tier: %v", err)
	}
	if err := ValidateTiers([]Tier{one, one}); err == nil || !strings.Contains(err.Error(), `duplicate tier label "a" (tiers 1 and 2)`) {
		t.Errorf("duplicate: %v", err)
	}
	many := make([]Tier, 11)
	for i := range many {
		many[i] = Tier{Label: string(rune('a' + i)), Filters: one.Filters}
	}
	if err := ValidateTiers(many); err == nil {
		t.Error("11 tiers accepted")
	}
}

func TestFromValueNested(t *testing.T) {
	t.Parallel()
	var tree any
	if err := json.Unmarshal([]byte(`{"ttft": {"p95": {"le": 3000}}, "request_latency": {"avg": {"lt": "500", "gt": 1}}}`), &tree); err != nil {
		t.Fatal(err)
	}
	got, err := FromValue(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := []Filter{
		{"request_latency", "avg", GT, 1},
		{"request_latency", "avg", LT, 500},
		{"time_to_first_token", "p95", LE, 3000},
	}
	if len(got) != len(want) {
		t.Fatalf("FromValue = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("filter %d = %+v; want %+v", i, got[i], want[i])
		}
	}
}

func TestFromValueList(t *testing.T) {
	t.Parallel()
	var tree any
	if err := json.Unmarshal([]byte(`[{"metric_tag": "time_to_first_token", "op": "lt", "threshold": 200}, {"metric_tag": "request_error_rate", "stat": "avg", "op": "le", "threshold": 1}]`), &tree); err != nil {
		t.Fatal(err)
	}
	got, err := FromValue(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Filter{"time_to_first_token", DefaultStat, LT, 200}) || got[1] != (Filter{"request_error_rate", "avg", LE, 1}) {
		t.Errorf("FromValue(list) = %+v", got)
	}
}

func TestFromValueErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		want []string
	}{
		{`{"ttft": 3}`, []string{"ttft: must map statistics"}},
		{`{"ttft": {"p95": 3}}`, []string{"ttft.p95: must map operators"}},
		{`{"ttft": {"p95": {"lt": true}}, "itl": {"p42": {"lt": 1}}}`, []string{"ttft.p95.lt: threshold must be a number", `itl.p42.lt: unknown stat "p42"`}},
		{`[{"metric_tag": "x", "op": "lt", "threshold": 1, "extra": 2}]`, []string{`filter 0: unknown key "extra"`}},
		{`[{"stat": "avg"}]`, []string{"metric_tag is required", "op is required", "threshold is required"}},
		{`[{"metric_tag": 3, "op": "lt", "threshold": 1}]`, []string{"metric_tag must be a string"}},
		{`[3]`, []string{"filter 0: must be a mapping"}},
		{`"ttft<3"`, []string{"must be a mapping"}},
	}
	for _, tt := range tests {
		var tree any
		if err := json.Unmarshal([]byte(tt.json), &tree); err != nil {
			t.Fatal(err)
		}
		_, err := FromValue(tree)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("FromValue(%s) error = %v; want it to contain %q", tt.json, err, w)
			}
		}
	}
	if fs, err := FromValue(nil); err != nil || fs != nil {
		t.Errorf("FromValue(nil) = %v, %v; want none", fs, err)
	}
}

func TestShorthands(t *testing.T) {
	t.Parallel()
	s := Shorthands{TTFTms: ptr(200), TPOTms: ptr(25), E2Ems: ptr(5000), ErrorRate: ptr(0.05)}
	got, err := s.Filters()
	if err != nil {
		t.Fatal(err)
	}
	want := []Filter{
		{"time_to_first_token", "p95", LT, 200},
		{"inter_token_latency", "p95", LT, 25},
		{"request_latency", "p99", LT, 5000},
		{"request_error_rate", "avg", LT, 5}, // fraction -> percent
	}
	if len(got) != len(want) {
		t.Fatalf("Filters = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("filter %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	if !s.Any() || (Shorthands{}).Any() {
		t.Error("Any is wrong")
	}
	if fs, err := (Shorthands{ITLms: ptr(10), TPOTms: ptr(10)}).Filters(); err != nil || len(fs) != 1 {
		t.Errorf("equal aliases: %v, %v; want one filter", fs, err)
	}
	bad := Shorthands{TTFTms: ptr(0), ITLms: ptr(10), TPOTms: ptr(20), ErrorRate: ptr(5)}
	_, err = bad.Filters()
	for _, w := range []string{"--ttft-sla-ms: must be > 0", "--error-rate-sla: must be a fraction", "aliases of one inter-token-latency SLA but differ"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("bad shorthands error = %v; want it to contain %q", err, w)
		}
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	src := Table{}.Set("time_to_first_token", "p95", 150).Set("inter_token_latency", "p95", 30).Set("request_latency", "p99", math.Inf(1))
	ttft := Filter{"time_to_first_token", "p95", LT, 200}
	itl := Filter{"inter_token_latency", "p95", LT, 25}
	missing := Filter{"goodput", "avg", GT, 1}
	inf := Filter{"request_latency", "p99", LT, 1e9}

	if r := Evaluate(nil, src); !r.Pass || r.Describe() != "pass" {
		t.Errorf("no filters: %+v; want a pass", r)
	}
	r := Evaluate([]Filter{ttft}, src)
	if !r.Pass || len(r.Checks) != 1 || r.Checks[0].Value != 150 {
		t.Errorf("ttft only: %+v; want a pass at 150", r)
	}
	r = Evaluate([]Filter{ttft, itl, missing, inf}, src)
	if r.Pass {
		t.Fatal("itl over budget and a missing metric passed")
	}
	failed := r.Failed()
	if len(failed) != 3 || failed[0].Filter != itl || failed[1].Found || failed[2].Filter != inf {
		t.Errorf("Failed = %+v", failed)
	}
	b, ok := r.Binding()
	if !ok || b.Filter != inf { // -inf margin beats itl's -0.2
		t.Errorf("Binding = %+v, %v; want the infinite latency", b, ok)
	}
	desc := r.Describe()
	for _, w := range []string{"inter_token_latency p95 < 25 (got 30)", "no goodput_avg in the results"} {
		if !strings.Contains(desc, w) {
			t.Errorf("Describe = %q; want it to contain %q", desc, w)
		}
	}
	b, ok = Evaluate([]Filter{ttft, itl}, src).Binding()
	if !ok || b.Filter != itl {
		t.Errorf("Binding of ttft (0.25) and itl (-0.2) = %+v; want itl", b)
	}
}

func TestStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range []Filter{{"time_to_first_token", "p95", LT, 200}, {"x", "min", GE, 0.1 + 0.2}, {"y", "max", GT, -1e-300}} {
		got, err := Parse(f.String())
		if err != nil || got != f {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", f.String(), got, err, f)
		}
	}
	if d := (Filter{"time_to_first_token", "p95", LE, 200}).Describe(); d != "time_to_first_token p95 <= 200" {
		t.Errorf("Describe = %q", d)
	}
	if k := (Filter{"time_to_first_token", "p95", LE, 200}).Key(); k != "time_to_first_token_p95" {
		t.Errorf("Key = %q", k)
	}
}

// FuzzParse: Parse never panics, and what it accepts prints back to a
// string it reads as the same filter.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"time_to_first_token:p95:lt:200", "ttft:avg:ge:-1e3", "a:b:c:d", ":::", "x:p99:le:0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		if err != nil || again != got {
			t.Fatalf("Parse(%q) = %+v; its String %q reads back as %+v, %v", s, got, got.String(), again, err)
		}
	})
}

// FuzzParseTier: ParseTier never panics and a parsed tier has filters.
func FuzzParseTier(f *testing.F) {
	for _, s := range []string{"fast:ttft:p95:lt:1,itl:p95:lt:2", "ttft:p95:lt:1", "a:", ",,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tier, err := ParseTier(s, 0)
		if err == nil && (tier.Label == "" || len(tier.Filters) == 0) {
			t.Fatalf("ParseTier(%q) = %+v: a tier needs a label and filters", s, tier)
		}
	})
}

// FuzzFromJSON: any JSON document is either rejected or yields valid
// filters.
func FuzzFromJSON(f *testing.F) {
	for _, s := range []string{`{"ttft":{"p95":{"lt":200}}}`, `[{"metric_tag":"x","op":"gt","threshold":"1"}]`, `{"a":{"b":{"c":null}}}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var tree any
		if json.Unmarshal([]byte(s), &tree) != nil {
			return
		}
		fs, err := FromValue(tree)
		if err != nil {
			return
		}
		for _, flt := range fs {
			if _, err := New(flt.Metric, flt.Stat, string(flt.Op), flt.Threshold); err != nil {
				t.Fatalf("FromValue(%s) gave invalid filter %+v: %v", s, flt, err)
			}
		}
	})
}
