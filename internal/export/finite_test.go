package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// extremes are the values most likely to break a writer: the non-finite
// ones, the largest and smallest magnitudes, and the two zeros.
var extremes = []float64{
	math.NaN(), math.Inf(1), math.Inf(-1),
	math.MaxFloat64, -math.MaxFloat64, 1e308, -1e308, 1e300,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-300, 2.2250738585072014e-308,
	0, math.Copysign(0, -1), 1 << 53, 1<<53 + 1,
}

// randomValue draws an extreme half of the time, otherwise a value of any
// magnitude and sign.
func randomValue(r *rand.Rand) float64 {
	if r.IntN(2) == 0 {
		return extremes[r.IntN(len(extremes))]
	}
	v := math.Pow(10, float64(r.IntN(600)-300)) * r.Float64()
	if r.IntN(2) == 0 {
		v = -v
	}
	return v
}

// randomProcessed builds a record with a random value for every record and
// aggregate metric of reg; some records fail.
func randomProcessed(r *rand.Rand, reg *metrics.Registry, seq int) *metrics.Processed {
	rec := &record.Record{Seq: uint64(seq), Phase: record.Profiling,
		Sent: time.Duration(seq) * time.Millisecond, End: time.Duration(seq+1) * time.Millisecond}
	if r.IntN(5) == 0 {
		rec.Error = &record.ErrorDetails{Code: 500, Type: "InternalServerError", Message: "boom"}
	}
	p := &metrics.Processed{Record: rec, Valid: rec.Error == nil, ProcessorID: "record_processor_0",
		StartNs: int64(rec.Sent), EndNs: int64(rec.End)}
	for _, m := range reg.Metrics() {
		if m.Kind == metrics.KindDerived || r.IntN(4) == 0 {
			continue
		}
		v := metrics.Value{Metric: m}
		if m.List {
			for range r.IntN(5) {
				v.List = append(v.List, randomValue(r))
			}
		} else {
			v.Scalar = randomValue(r)
		}
		p.Values = append(p.Values, v)
	}
	return p
}

// poison overwrites some of a summary's numbers with non-finite values,
// as a buggy upstream might hand them over, to exercise the backstop.
func poison(r *rand.Rand, s *metrics.Summary) {
	bad := func() float64 { return extremes[r.IntN(3)] }
	for i := range s.Results {
		res := &s.Results[i]
		if r.IntN(3) != 0 {
			continue
		}
		if res.Stats == nil {
			res.Value = bad()
			continue
		}
		st := *res.Stats
		for _, f := range []*float64{&st.Avg, &st.Min, &st.Max, &st.Sum, &st.P1, &st.P5, &st.P10, &st.P25,
			&st.P50, &st.P75, &st.P90, &st.P95, &st.P99, &st.Std} {
			if r.IntN(3) == 0 {
				*f = bad()
			}
		}
		res.Stats = &st
	}
}

// TestNonFiniteNeverReachesArtifacts is the property: whatever values the
// records carry (NaN, ±Inf, huge, tiny), after the accumulator, the
// summary JSON and every JSONL line parse with encoding/json and hold no
// NaN or Infinity spelled as a string, and every numeric CSV cell is empty
// or a finite number.
func TestNonFiniteNeverReachesArtifacts(t *testing.T) {
	t.Parallel()
	reg := metrics.Builtin()
	slos := map[string]float64{"time_to_first_token": 100, "request_latency": 500}
	const iterations = 300
	for seed := range uint64(iterations) {
		r := rand.New(rand.NewPCG(seed, 0x6e616e))
		acc := metrics.NewAccumulator(reg, reg.Metrics(), slos)
		n := 1 + r.IntN(20)
		for i := range n {
			p := randomProcessed(r, reg, i)
			acc.Add(p)
			line := AppendRecordLine(nil, p, LineOptions{Clock: testWall})
			checkJSON(t, seed, "record line", line)
		}
		s := acc.Summarize()
		if seed%2 == 1 {
			poison(r, &s)
		}
		warm := s
		b, err := SummaryJSON(&s, RunInfo{Version: "test", BenchmarkID: "x", Warmup: &warm})
		if err != nil {
			t.Fatalf("seed %d: SummaryJSON: %v", seed, err)
		}
		checkJSON(t, seed, "summary", b)
		checkCSV(t, seed, SummaryCSV(&s))
		var console bytes.Buffer
		if err := Console(&console, &s, ConsoleOptions{Title: "t"}); err != nil {
			t.Fatalf("seed %d: Console: %v", seed, err)
		}
		// The only non-finite spelling allowed on the console is an
		// error-adjusted +Inf, as "inf": no more of them than those
		// results hold in the console's columns.
		text := console.String()
		if n, most := strings.Count(" "+text+" ", " inf "), consoleInfs(&s); n > most {
			t.Fatalf("seed %d: console shows inf %d times, the adj_* results hold %d:\n%s", seed, n, most, text)
		}
		if bad := nonFiniteWord(strings.ReplaceAll(text, " inf ", " ")); bad != "" {
			t.Fatalf("seed %d: console shows %q:\n%s", seed, bad, text)
		}
	}
}

// nonFiniteWord returns the first spelling of a non-finite number in s.
func nonFiniteWord(s string) string {
	for _, w := range []string{"NaN", "nan", "Inf", "inf"} {
		for i := 0; ; {
			j := strings.Index(s[i:], w)
			if j < 0 {
				break
			}
			j += i
			// A whole word, not part of "Info" or "finite".
			before := j == 0 || !isLetter(s[j-1])
			after := j+len(w) == len(s) || !isLetter(s[j+len(w)]) || strings.HasPrefix(s[j+len(w):], "inity")
			if before && after {
				return w
			}
			i = j + len(w)
		}
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func checkJSON(t *testing.T, seed uint64, what string, b []byte) {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("seed %d: %s is not valid JSON (%v):\n%s", seed, what, err, b)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			if nonFiniteWord(x) != "" {
				t.Fatalf("seed %d: %s holds the string %q:\n%s", seed, what, x, b)
			}
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				t.Fatalf("seed %d: %s holds the number %s, not finite in a float64", seed, what, x)
			}
		}
	}
	walk(v)
}

// consoleInfs counts the +Inf values of s's error-adjusted results in the
// console's columns: the most "inf" cells the console may show.
func consoleInfs(s *metrics.Summary) int {
	n := 0
	for _, r := range s.ErrorAdjusted {
		st := r.Stats
		for _, v := range []float64{st.Avg, st.Min, st.Max, st.P99, st.P90, st.P50, st.Std} {
			if math.IsInf(v, 1) {
				n++
			}
		}
	}
	return n
}

// checkCSV checks that every numeric cell of a summary CSV is empty or a
// finite number, but for an error-adjusted row's "inf" (AIPerf's spelling
// of its +Inf).
func checkCSV(t *testing.T, seed uint64, b []byte) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("seed %d: CSV does not parse: %v\n%s", seed, err, b)
	}
	for _, row := range rows {
		if len(row) == 0 || row[0] == "Metric" {
			continue
		}
		adjusted := strings.Contains(row[0], "(error-adjusted)")
		for _, cell := range row[1:] {
			if cell == "" || adjusted && cell == "inf" {
				continue
			}
			f, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				t.Fatalf("seed %d: CSV cell %q is not a finite number:\n%s", seed, cell, b)
			}
		}
	}
}

func TestNumberWritersNeverSpellNonFinite(t *testing.T) {
	t.Parallel()
	for _, f := range extremes {
		j := string(appendJSONNumber(nil, f))
		c := csvNumber(f)
		g := grouped2(f)
		if stats.Finite(f) {
			if !json.Valid([]byte(j)) || j == "null" || c == "" || g == notAvailable {
				t.Errorf("%v: json %q, csv %q, console %q", f, j, c, g)
			}
			continue
		}
		if j != "null" || c != "" || g != notAvailable || fixed2(f) != notAvailable {
			t.Errorf("%v: json %q, csv %q, console %q; want null, empty, N/A", f, j, c, g)
		}
	}
}
