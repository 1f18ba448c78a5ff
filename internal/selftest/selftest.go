// Package selftest checks the client against a server whose every timing
// and token count is known: the embedded mock, in process, streaming
// shaped chat answers (several tokens per chunk, reasoning deltas, a tool
// call's deltas, usage-only chunks) on a seeded constant-rate schedule.
// The real profile pipeline (benchmark.Run) measures it; every reported
// count must equal the analytic one exactly, and every timing must match
// what the mock recorded writing (its ground truth) within a tolerance
// derived from this machine's own floor, measured first against the mock
// answering at once.
//
// The tolerance is not a constant: a loaded machine has a higher floor,
// and the bound grows with it, so the check passes wherever the client is
// sound and fails where it mismeasures by more than its own floor.
package selftest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// The schedule of the timed phase. Every figure of the run follows from
// these.
const (
	ISL       = 64                    // prompt tokens of every request
	OSL       = 48                    // output tokens (ignore_eos)
	TTFT      = 25 * time.Millisecond // the mock's time to its first token
	ITL       = 3 * time.Millisecond  // and between tokens
	Chunk     = 3                     // tokens per chunk
	Reasoning = 12                    // the first 12 tokens are reasoning
	ToolCall  = 9                     // the last 9 are one tool call
	Rate      = 20.0                  // requests per second, constant arrivals
	Seed      = 7                     // --random-seed
)

// Options are a self-test's settings.
type Options struct {
	// Dir is a scratch directory for the runs' artifacts and the mock's
	// records; it must exist.
	Dir string
	// Requests is the number of requests of each phase (default 24).
	Requests int
}

// Check is one comparison of a reported figure with the truth.
type Check struct {
	Name string
	// Got and Want are what the client reported and the truth; for a
	// timing, Got is the median error against the mock's record and Want
	// 0.
	Got, Want float64
	// Tol is the allowed |Got-Want|; 0 for an exact count.
	Tol  float64
	Unit string
	// Detail names the first request that broke an exact check.
	Detail string
}

// OK reports whether the check holds.
func (c Check) OK() bool {
	return c.Detail == "" && math.Abs(c.Got-c.Want) <= c.Tol
}

// Budget is the client's own error on this machine, in milliseconds.
type Budget struct {
	// FloorP50/P99 are the time to first token against a mock that
	// answers at once, less its own time: request transit, delivery of
	// the first chunk and the client's own work.
	FloorP50, FloorP99 float64
	// ITLJitterP50/P99 are |client gap - written gap| over every
	// consecutive pair of chunks of the timed phase.
	ITLJitterP50, ITLJitterP99 float64
	// SendLagP50/P99 are the timed phase's schedule lag (sent - due).
	SendLagP50, SendLagP99 float64
	// MockLagP50 is how late the mock wrote its first chunk against its
	// own schedule (its sleeps, not the client); reported, not judged.
	MockLagP50 float64
}

// Report is a self-test's outcome.
type Report struct {
	Checks []Check
	Budget Budget
}

// Passed reports whether every check held.
func (r *Report) Passed() bool {
	for _, c := range r.Checks {
		if !c.OK() {
			return false
		}
	}
	return true
}

// Write prints the report: the error budget, then one line per check.
func (r *Report) Write(w io.Writer) error {
	b := r.Budget
	fmt.Fprintf(w, "client error budget on this machine (ms):\n")
	fmt.Fprintf(w, "  TTFT floor          p50 %8.3f  p99 %8.3f\n", b.FloorP50, b.FloorP99)
	fmt.Fprintf(w, "  ITL jitter          p50 %8.3f  p99 %8.3f\n", b.ITLJitterP50, b.ITLJitterP99)
	fmt.Fprintf(w, "  send lag            p50 %8.3f  p99 %8.3f\n", b.SendLagP50, b.SendLagP99)
	fmt.Fprintf(w, "  (the mock's own lateness, not judged: p50 %.3f)\n", b.MockLagP50)
	for _, c := range r.Checks {
		status := "OK  "
		if !c.OK() {
			status = "FAIL"
		}
		var line string
		if c.Tol == 0 && c.Unit != "ms" {
			line = fmt.Sprintf("%s %-34s %g (want %g exactly)", status, c.Name, c.Got, c.Want)
		} else {
			line = fmt.Sprintf("%s %-34s median error %+.3f ms (bound ±%.3f)", status, c.Name, c.Got, c.Tol)
		}
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if r.Passed() {
		_, err := fmt.Fprintln(w, "selftest passed")
		return err
	}
	_, err := fmt.Fprintln(w, "selftest FAILED")
	return err
}

// Shape is the mock configuration of the timed phase (fast: the floor
// phase, answering at once).
func Shape(fast bool) mockserver.Config {
	m := mockserver.DefaultConfig()
	m.TTFT, m.ITL, m.Fast = TTFT, ITL, fast
	m.ChunkTokens, m.ReasoningTokens, m.ToolCallTokens, m.UsageChunks = Chunk, Reasoning, ToolCall, true
	m.RandomSeed, m.SeedSet = Seed, true
	m.MetricsStyle = "none"
	return m
}

// Run runs the floor phase, then the timed phase, and judges them.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Requests <= 0 {
		o.Requests = 24
	}
	floor, err := phase(ctx, o, "floor", Shape(true))
	if err != nil {
		return nil, err
	}
	timed, err := phase(ctx, o, "timed", Shape(false))
	if err != nil {
		return nil, err
	}
	return judge(o.Requests, floor, timed), nil
}

// joined is one request seen from both sides.
type joined struct {
	client *results.Record
	server *mockserver.RecordedRequest
}

// phase runs the pipeline against a mock of shape m and joins the
// client's records with the mock's by X-Request-ID.
func phase(ctx context.Context, o Options, name string, m mockserver.Config) ([]joined, error) {
	tok, err := tokenizer.Resolve(tokenizer.BuiltinAlias, "")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(o.Dir, name)
	m.CountTokens = tok.Count
	m.RecordRequests = filepath.Join(o.Dir, name+"-server.jsonl")
	srv, err := mockserver.Start(m, "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg := Config(srv.URL(), dir, o.Requests, name == "floor")
	var log bytesBuffer
	runErr := benchmark.Run(ctx, &cfg, benchmark.IO{Stdout: io.Discard, Stderr: &log})
	if err := srv.Close(); err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, fmt.Errorf("%s phase: %w\n%s", name, runErr, log.tail())
	}
	server := map[string]*mockserver.RecordedRequest{}
	if err := readServer(m.RecordRequests, server); err != nil {
		return nil, err
	}
	var out []joined
	err = results.ReadRecords(filepath.Join(benchmark.ArtifactDir(&cfg), "profile_export.jsonl"), func(r *results.Record) error {
		if r.Phase != "profiling" {
			return nil
		}
		out = append(out, joined{client: r, server: server[r.Meta.XRequestID]})
		return nil
	})
	return out, err
}

// Config is the profile configuration of a phase against url: the
// schedule above, the built-in tokenizer, no server metrics, no UI.
func Config(url, dir string, requests int, fast bool) config.Config {
	cfg := config.Defaults()
	cfg.Endpoint.ModelNames = []string{"mock-model"}
	cfg.Endpoint.URLs = []string{url}
	cfg.Endpoint.Type = config.EndpointChat
	cfg.Endpoint.Streaming = true
	isl, osl, seed, rate := ISL, OSL, int64(Seed), Rate
	if fast {
		rate *= 2
	}
	cfg.Input.InputTokens = config.InputTokens{Mean: isl}
	cfg.Input.OutputTokens = config.OutputTokens{Mean: &osl}
	cfg.Input.Extra = []config.ExtraInput{{Key: "ignore_eos", Value: json.RawMessage("true")}}
	cfg.Input.RandomSeed = &seed
	cfg.Load.RequestRate = &rate
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = &requests
	cfg.Tokenizer.Name = tokenizer.BuiltinAlias
	cfg.Telemetry.ServerMetrics.Disabled = true
	cfg.Output.ArtifactDir, cfg.Output.ArtifactDirExplicit = dir, true
	cfg.Service.UIType = config.UINone
	return cfg
}

// readServer reads the mock's record into byID.
func readServer(path string, byID map[string]*mockserver.RecordedRequest) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if r.RequestID != "" {
			byID[r.RequestID] = &r
		}
	}
	return sc.Err()
}

// bytesBuffer keeps a run's log for an error message.
type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *bytesBuffer) tail() string                { return string(w.b[max(0, len(w.b)-2000):]) }
