package selftest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/results"
)

// TestSelftest runs the real thing: both phases through the profile
// pipeline against the in-process mock. Every exact check must hold, and
// the whole self-test must pass on this machine, whatever its load: the
// timing bounds come from the floor measured in the same run.
func TestSelftest(t *testing.T) {
	rep, err := Run(context.Background(), Options{Dir: t.TempDir(), Requests: 16})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	exact := 0
	for _, c := range rep.Checks {
		if c.Unit != "ms" {
			exact++
			if !c.OK() {
				t.Errorf("exact check %s: got %g, want %g %s", c.Name, c.Got, c.Want, c.Detail)
			}
		}
	}
	if exact != 13 {
		t.Errorf("%d exact checks, want 13", exact)
	}
	if !rep.Passed() {
		t.Errorf("selftest failed:\n%s", out.String())
	}
	for _, w := range []string{"TTFT floor", "ITL jitter", "send lag", "selftest passed"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("no %q in\n%s", w, out.String())
		}
	}
}

// TestTimings reads one request from both sides: the client's metrics
// against the chunks the mock recorded writing.
func TestTimings(t *testing.T) {
	const ms = int64(1e6)
	srv := &mockserver.RecordedRequest{ReceivedNs: 1000 * ms, Chunks: []mockserver.RecordedChunk{
		{WriteNs: 1000 * ms, Kind: "role"},
		{WriteNs: 1031 * ms, Kind: mockserver.ChunkReasoning},
		{WriteNs: 1040 * ms, Kind: mockserver.ChunkReasoning},
		{WriteNs: 1041 * ms, Kind: "usage"},
		{WriteNs: 1049 * ms, Kind: mockserver.ChunkToken},
		{WriteNs: 1058 * ms, Kind: mockserver.ChunkTool},
		{WriteNs: 1059 * ms, Kind: "finish"},
		{WriteNs: 1060 * ms, Kind: "done"},
	}}
	cl := &results.Record{Metrics: map[string]results.Value{
		"time_to_first_token":        {Scalar: 31.5},
		"time_to_first_output_token": {Scalar: 49.5},
		"time_to_second_token":       {Scalar: 9.5},
		"request_latency":            {Scalar: 58.5},
		"inter_token_latency":        {Scalar: 27.0 / (OSL - 1)},
		"inter_chunk_latency":        {List: []float64{9, 9, 9}, IsList: true},
	}}
	s := timings(joined{client: cl, server: srv})
	if !s.ok {
		t.Fatal("not timed")
	}
	for name, p := range map[string][2]float64{"ttft": s.ttft, "ttfot": s.ttfot, "ttst": s.ttst, "latency": s.latency} {
		if d := p[0] - p[1]; d < 0.499 || d > 0.501 {
			t.Errorf("%s: client %g, truth %g", name, p[0], p[1])
		}
	}
	if len(s.gaps) != 3 || s.gaps[0] != [2]float64{9, 9} {
		t.Errorf("gaps %v", s.gaps)
	}
	if s.itl[1] != 27.0/(OSL-1) {
		t.Errorf("itl truth %g", s.itl[1])
	}
	// A client that saw another number of chunks has no gaps to compare.
	cl.Metrics["inter_chunk_latency"] = results.Value{List: []float64{9}, IsList: true}
	if s := timings(joined{client: cl, server: srv}); len(s.gaps) != 0 {
		t.Errorf("gaps %v from a list of the wrong length", s.gaps)
	}
}
