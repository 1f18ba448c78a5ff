package cli

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/otel"
	"github.com/aiperf-go/aiperf/internal/otel/otlptest"
	"github.com/aiperf-go/aiperf/internal/results"
)

// TestOTelAgainstRecords runs a benchmark against the embedded mock with
// --otel-url pointing at an OTLP/HTTP receiver, then checks what arrived
// against the run's own profile_export.jsonl: one duration, first-chunk
// and token-usage observation per request, the same sums, the run's
// attributes, and timing counters equal to the request count.
func TestOTelAgainstRecords(t *testing.T) {
	t.Parallel()
	dir, rx, _ := runWithOTel(t, "--request-count", "24", "--concurrency", "4", "--osl", "8", "--warmup-request-count", "3",
		"--otel-resource-attributes", "team=perf,env=ci", "--gen-ai-provider", "vllm")
	var n, warm int
	var latS, ttftS, osl float64
	err := results.ReadRecords(filepath.Join(dir, "profile_export.jsonl"), func(r *results.Record) error {
		if r.Phase != "profiling" {
			warm++
			return nil
		}
		n++
		v, _ := r.Scalar("request_latency")
		latS += v / 1000
		v, _ = r.Scalar("time_to_first_token")
		ttftS += v / 1000
		v, _ = r.Scalar("output_token_count")
		osl += v
		return nil
	})
	if err != nil || n != 24 || warm != 3 {
		t.Fatalf("records: %d profiling, %d warmup, %v", n, warm, err)
	}
	ms := rx.Latest()
	sum := summer{t: t, ms: ms}
	prof := map[string]string{"aiperf.benchmark_phase": "profiling", "gen_ai.provider.name": "vllm",
		"gen_ai.request.model": "mock-model", "gen_ai.operation.name": "chat"}
	for _, c := range []struct {
		name, unit string
		attrs      map[string]string
		count      int
		sum        float64
	}{
		{otel.OperationDuration, "s", prof, n, latS},
		{otel.TimeToFirstChunk, "s", prof, n, ttftS},
		{otel.TokenUsage, "{token}", map[string]string{"aiperf.benchmark_phase": "profiling", "gen_ai.token.type": "output"}, n, osl},
	} {
		cnt, s := sum.histogram(c.name, c.unit, c.attrs)
		if cnt != c.count || math.Abs(s-c.sum) > 1e-6*math.Max(1, c.sum) {
			t.Errorf("%s: count %d sum %v; the records say %d and %v", c.name, cnt, s, c.count, c.sum)
		}
	}
	if cnt, _ := sum.histogram(otel.OperationDuration, "s", map[string]string{"aiperf.benchmark_phase": "warmup"}); cnt != warm {
		t.Errorf("warmup durations %d; want %d", cnt, warm)
	}
	res := ms[otel.OperationDuration].Resource
	if res["team"] != "perf" || res["env"] != "ci" || res["service.name"] != "aiperf" || len(res["aiperf.benchmark.id"]) != 12 {
		t.Errorf("resource attributes %v", res)
	}
	for name, want := range map[string]float64{otel.RequestsSent: 24, otel.RequestsCompleted: 24, otel.RequestsInFlight: 0,
		otel.SessionsSent: 24, otel.SessionsCompleted: 24, otel.SessionTurns: 24, otel.SessionsInFlight: 0} {
		if got := sum.counter(name, "profiling"); got != want {
			t.Errorf("%s{profiling} = %v; want %v", name, got, want)
		}
	}
	if got := sum.counter(otel.RequestsCompleted, "warmup"); got != 3 {
		t.Errorf("%s{warmup} = %v; want 3", otel.RequestsCompleted, got)
	}
}

// TestOTelSessionsAgainstRecords runs three-turn conversations against
// the embedded mock for one second with no grace period, so the requests
// in flight at the end are cancelled, and checks the request and session
// counters and the phase flags against the run's profile_export.jsonl.
func TestOTelSessionsAgainstRecords(t *testing.T) {
	t.Parallel()
	dir, rx, stderr := runWithOTel(t, "--benchmark-duration", "1", "--benchmark-grace-period", "0", "--concurrency", "3",
		"--osl", "30", "--session-turns-mean", "3")
	var n, cancelled, failed, first int
	err := results.ReadRecords(filepath.Join(dir, "profile_export.jsonl"), func(r *results.Record) error {
		if r.Phase != "profiling" {
			return nil
		}
		n++
		switch {
		case r.Meta.Cancelled:
			cancelled++
		case r.Failed:
			failed++
		}
		if r.Meta.TurnIndex == 0 {
			first++
		}
		return nil
	})
	if err != nil || n == 0 || cancelled == 0 {
		t.Fatalf("records: %d, %d cancelled, %v (the run must end with requests in flight)\n%s", n, cancelled, err, stderr.String())
	}
	sum := summer{t: t, ms: rx.Latest()}
	for name, want := range map[string]float64{
		otel.RequestsSent: float64(n), otel.RequestsCompleted: float64(n - cancelled), otel.RequestsCancelled: float64(cancelled),
		otel.RequestsInFlight: 0, otel.SessionsSent: float64(first), otel.SessionsCancelled: float64(cancelled),
		otel.SessionsCompleted: float64(first - cancelled), otel.SessionTurns: float64(3 * first), otel.SessionsInFlight: 0,
		otel.PhaseTimeout: 1, otel.PhaseGrace: 1,
	} {
		if got := sum.counter(name, "profiling"); got != want {
			t.Errorf("%s{profiling} = %v; want %v (%d records, %d cancelled, %d first turns)", name, got, want, n, cancelled, first)
		}
	}
	if failed > 0 {
		if got := sum.counter(otel.RequestErrors, "profiling"); got != float64(failed) {
			t.Errorf("%s = %v; want %d", otel.RequestErrors, got, failed)
		}
	}
}

// runWithOTel runs a streaming profile of the embedded mock with args,
// its metrics sent to a fresh OTLP/HTTP receiver; it returns the artifact
// directory, the receiver and the run's stderr.
func runWithOTel(t *testing.T, args ...string) (string, *otlptest.Receiver, *bytes.Buffer) {
	t.Helper()
	rx := otlptest.New()
	t.Cleanup(rx.Close)
	dir := t.TempDir()
	var stderr bytes.Buffer
	args = append([]string{"profile", "--mock-server", "-m", "mock-model", "--streaming", "--ui-type", "none",
		"--output-artifact-dir", dir, "--otel-url", rx.URL}, args...)
	if code := Main(context.Background(), args, Env{Stderr: &stderr, Runner: RunBenchmark, Snapshot: environ.Read()}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	return dir, rx, &stderr
}

// summer adds up data points of the receiver's latest metrics.
type summer struct {
	t  *testing.T
	ms map[string]otlptest.Metric
}

func (s summer) histogram(name, unit string, want map[string]string) (int, float64) {
	s.t.Helper()
	m, ok := s.ms[name]
	if !ok || m.GetHistogram() == nil {
		s.t.Fatalf("no histogram %s", name)
	}
	if m.GetUnit() != unit {
		s.t.Errorf("%s unit %q; want %q", name, m.GetUnit(), unit)
	}
	var n int
	var sum float64
	for _, dp := range m.GetHistogram().GetDataPoints() {
		if matches(otlptest.Attrs(dp.GetAttributes()), want) {
			n += int(dp.GetCount())
			sum += dp.GetSum()
		}
	}
	return n, sum
}

func (s summer) counter(name, phase string) float64 {
	s.t.Helper()
	m, ok := s.ms[name]
	if !ok || m.GetSum() == nil {
		s.t.Fatalf("no counter %s", name)
	}
	var v float64
	for _, dp := range m.GetSum().GetDataPoints() {
		if otlptest.Attrs(dp.GetAttributes())["aiperf.benchmark_phase"] == phase {
			v += float64(dp.GetAsInt()) + dp.GetAsDouble()
		}
	}
	return v
}

func matches(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
