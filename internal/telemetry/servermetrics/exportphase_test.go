package servermetrics

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// TestPhaseDataCountsOnlyThePhasesScrapes scrapes the mock once as the
// baseline, twice in a warmup (index 0) and three times in the profiling
// phase (index 1), a request between each, and checks each phase's data:
// its own fetches only, first and last fetch as data's start and end, the
// statistics passed in, no unit or endpoint_url per series; a phase
// without scrapes has no data.
func TestPhaseDataCountsOnlyThePhasesScrapes(t *testing.T) {
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	scr := prom.NewScraper(ts.URL+"/metrics", nil)
	store := NewStore()
	const sec = int64(time.Second)
	scrape := func(at int64, phase string, index int) {
		sc, err := scr.Scrape(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		store.Add(Sample{URL: sc.URL, At: at, LatencyNs: 1e6, Duplicate: sc.Duplicate, Families: sc.Families, Phase: phase, PhaseIndex: index})
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json",
			strings.NewReader(`{"model":"m","prompt":"a b c","max_tokens":10,"ignore_eos":true}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	scrape(1*sec, "", 0)
	scrape(2*sec, "warmup", 0)
	scrape(3*sec, "warmup", 0)
	for i := range 3 {
		scrape(int64(4+i)*sec, "profiling", 1)
	}
	x := &Export{BenchmarkID: "abc", Endpoints: store.Endpoints()}
	prof := 0
	for _, tc := range []struct {
		ph               export.PhaseRef
		fetches          int
		firstNs, lastNs  int64
		wantProfilingIdx bool
	}{
		{export.PhaseRef{Index: 0, Name: "warmup", Kind: "warmup"}, 2, 2 * sec, 3 * sec, false},
		{export.PhaseRef{Index: 1, Name: "profiling", Kind: "profiling", ProfilingIndex: &prof}, 3, 4 * sec, 6 * sec, true},
	} {
		sum := store.Summarize(Window{Start: tc.firstNs, End: tc.lastNs}, tc.ph.Kind == "profiling")
		data, ok := x.PhaseData(store, tc.ph, sum)
		if !ok {
			t.Fatalf("%s: no data", tc.ph.Name)
		}
		var d struct {
			StartNs           int64 `json:"start_ns"`
			End               int64 `json:"end_ns"`
			Phase             string
			PhaseKind         string `json:"phase_kind"`
			ProfilingIndex    *int   `json:"profiling_index"`
			EndpointSummaries map[string]struct {
				EndpointURL string `json:"endpoint_url"`
				Info        struct {
					TotalFetches int   `json:"total_fetches"`
					First        int64 `json:"first_fetch_ns"`
					Last         int64 `json:"last_fetch_ns"`
				}
				Metrics map[string]map[string]json.RawMessage
			} `json:"endpoint_summaries"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: %v\n%s", tc.ph.Name, err, data)
		}
		es, found := d.EndpointSummaries[prom.EndpointDisplay(ts.URL+"/metrics")]
		if !found || len(d.EndpointSummaries) != 1 {
			t.Fatalf("%s: endpoint summaries %v", tc.ph.Name, d.EndpointSummaries)
		}
		if es.EndpointURL != ts.URL+"/metrics" || es.Info.TotalFetches != tc.fetches || es.Info.First != tc.firstNs || es.Info.Last != tc.lastNs {
			t.Errorf("%s: url %s, %d fetches %d..%d; want %d fetches %d..%d", tc.ph.Name, es.EndpointURL, es.Info.TotalFetches, es.Info.First, es.Info.Last, tc.fetches, tc.firstNs, tc.lastNs)
		}
		if d.StartNs != tc.firstNs || d.End != tc.lastNs {
			t.Errorf("%s: data start/end %d/%d; want the phase's first and last fetch %d/%d", tc.ph.Name, d.StartNs, d.End, tc.firstNs, tc.lastNs)
		}
		if d.Phase != tc.ph.Kind || d.PhaseKind != tc.ph.Kind {
			t.Errorf("%s: phase %q, phase_kind %q; want %q", tc.ph.Name, d.Phase, d.PhaseKind, tc.ph.Kind)
		}
		if (d.ProfilingIndex != nil) != tc.wantProfilingIdx {
			t.Errorf("%s: profiling_index %v", tc.ph.Name, d.ProfilingIndex)
		}
		if len(es.Metrics) != len(sum.Metrics) || len(es.Metrics) == 0 {
			t.Errorf("%s: %d metrics; the summary has %d", tc.ph.Name, len(es.Metrics), len(sum.Metrics))
		}
		for name, m := range es.Metrics {
			if _, has := m["unit"]; has {
				t.Errorf("%s %s: a per-phase metric has no unit", tc.ph.Name, name)
			}
			if strings.Contains(string(m["series"]), "endpoint_url") {
				t.Errorf("%s %s: a per-phase series has no endpoint_url", tc.ph.Name, name)
			}
		}
	}
	if _, ok := x.PhaseData(store, export.PhaseRef{Index: 2, Name: "later", Kind: "profiling"}, nil); ok {
		t.Error("a phase without scrapes has data; AIPerf writes no file for it")
	}
}
