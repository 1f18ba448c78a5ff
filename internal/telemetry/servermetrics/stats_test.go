package servermetrics

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
)

// referenceCase is one series from testdata/aiperf_stats.json with the
// statistics AIPerf 0.13's compute_stats gave it
// (scripts/telemetry-goldens.sh).
type referenceCase struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Points []struct {
		TS    int64   `json:"ts"`
		Value float64 `json:"value"`
	} `json:"points"`
	Samples []struct {
		TS      int64              `json:"ts"`
		Sum     float64            `json:"sum"`
		Count   float64            `json:"count"`
		Buckets map[string]float64 `json:"buckets"`
	} `json:"samples"`
	Filter struct {
		Start int64 `json:"start_ns"`
		End   int64 `json:"end_ns"`
	} `json:"filter"`
	Expected *struct {
		Stats   map[string]float64 `json:"stats"`
		Buckets map[string]float64 `json:"buckets"`
	} `json:"expected"`
}

func loadReference(t *testing.T) []referenceCase {
	t.Helper()
	b, err := os.ReadFile("testdata/aiperf_stats.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []referenceCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

func histFromReference(c *referenceCase) *histSeries {
	h := &histSeries{}
	for le := range c.Samples[0].Buckets {
		h.les = append(h.les, le)
	}
	bound := func(le string) float64 {
		if le == "+Inf" {
			return math.Inf(1)
		}
		v, _ := strconv.ParseFloat(le, 64)
		return v
	}
	sort.Slice(h.les, func(i, j int) bool { return bound(h.les[i]) < bound(h.les[j]) })
	for _, le := range h.les {
		h.bounds = append(h.bounds, bound(le))
	}
	for _, s := range c.Samples {
		row := make([]float64, len(h.les))
		for k, le := range h.les {
			row[k] = s.Buckets[le]
		}
		h.ts, h.sums, h.counts, h.cum = append(h.ts, s.TS), append(h.sums, s.Sum), append(h.counts, s.Count), append(h.cum, row)
	}
	return h
}

// close reports whether got matches AIPerf's want: relative 1e-9 (summation
// order differs from numpy's pairwise sums), absolute 1e-12 near zero.
func close(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(math.Abs(want), 1e-3)
}

func TestStatsMatchAIPerf(t *testing.T) {
	t.Parallel()
	for _, c := range loadReference(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			w := Window{c.Filter.Start, c.Filter.End}
			got := map[string]float64{}
			var buckets map[string]float64
			var ok bool
			switch c.Type {
			case "gauge", "counter":
				s := &scalarSeries{}
				for _, p := range c.Points {
					s.ts, s.vals = append(s.ts, p.TS), append(s.vals, p.Value)
				}
				if c.Type == "gauge" {
					var g GaugeStats
					g, ok = gaugeStats(s, w)
					got = gaugeMap(g)
				} else {
					var cs CounterStats
					cs, ok = counterStats(s, w)
					got = map[string]float64{"total": cs.Total, "rate": cs.Rate}
				}
			case "histogram":
				h := histFromReference(&c)
				var hs HistogramStats
				var bk []float64
				hs, bk, ok = histStats(h, w)
				got = histMap(hs)
				if bk != nil {
					buckets = map[string]float64{}
					for k, le := range h.les {
						buckets[le] = bk[k]
					}
				}
			}
			if c.Expected == nil {
				if ok {
					t.Fatalf("got stats %v; AIPerf has none", got)
				}
				return
			}
			if !ok {
				t.Fatal("no stats; AIPerf has some")
			}
			for k, want := range c.Expected.Stats {
				if g, present := got[k]; !present || !close(g, want) {
					t.Errorf("%s = %v (present %v); AIPerf %v", k, g, present, want)
				}
			}
			for k := range got {
				if _, present := c.Expected.Stats[k]; !present {
					t.Errorf("%s = %v; AIPerf leaves it out", k, got[k])
				}
			}
			for le, want := range c.Expected.Buckets {
				if buckets[le] != want {
					t.Errorf("bucket %s = %v; AIPerf %v", le, buckets[le], want)
				}
			}
		})
	}
}

func gaugeMap(g GaugeStats) map[string]float64 {
	return map[string]float64{"avg": g.Avg, "min": g.Min, "max": g.Max, "std": g.Std,
		"p1": g.P1, "p5": g.P5, "p10": g.P10, "p25": g.P25, "p50": g.P50, "p75": g.P75, "p90": g.P90, "p95": g.P95, "p99": g.P99}
}

func histMap(h HistogramStats) map[string]float64 {
	m := map[string]float64{"count": float64(h.Count)}
	if h.Count == 0 {
		return m
	}
	m["sum"], m["avg"] = h.Sum, h.Avg
	if h.CountRate != nil {
		m["count_rate"], m["sum_rate"] = *h.CountRate, *h.SumRate
	}
	if e := h.Estimates; e != nil {
		for k, v := range map[string]float64{"p1": e.P1, "p5": e.P5, "p10": e.P10, "p25": e.P25, "p50": e.P50, "p75": e.P75, "p90": e.P90, "p95": e.P95, "p99": e.P99} {
			m[k+"_estimate"] = v
		}
	}
	return m
}
