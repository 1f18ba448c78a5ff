package benchmark

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// These tests run whole benchmarks against the mock server with injected
// faults (docs/faults.md lists them with what they must record) and check
// the artifacts: each faulty request is an error record with the expected
// {code, type}, counted in error_request_count and error_summary and in no
// latency statistic, and the run completes.

// stallTimeout bounds each request of a run whose mock stalls, so that a
// stalled stream ends as a timeout error quickly.
const stallTimeout = 0.5

// faultRequestTimeout bounds each request of the other fault runs. It only
// guards against a hung test: a good or fast-failing request must never
// reach it, even on a loaded shared machine. At 0.5 s a truncated
// non-streaming answer once timed out on the client at a load average of
// 25, so the mock had not yet counted its fault when the run returned.
const faultRequestTimeout = 30

// faultMock serves a mock whose configuration edit sets the faults. It
// calls onAttempt when each inference request arrives, with its
// X-Request-ID, and the function it returns once the mock has answered,
// with the request's fault (FaultNone when it had none): a request the
// client resent after a stale connection shows up once per attempt, under
// the same id, in arrival order.
func faultMock(t *testing.T, edit func(*mockserver.Config), onAttempt func(id string) func(mockserver.Fault)) (url string, m *mockserver.Server) {
	t.Helper()
	type faultKey struct{}
	cfg := mockConfig(t, func(c *mockserver.Config) {
		c.FaultDelay = 50 * time.Millisecond
		c.OnFault = func(r *http.Request, f mockserver.Fault) {
			if slot, ok := r.Context().Value(faultKey{}).(*mockserver.Fault); ok {
				*slot = f
			}
		}
		if edit != nil {
			edit(c)
		}
	})
	m = mockserver.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || onAttempt == nil {
			m.ServeHTTP(w, r)
			return
		}
		done := onAttempt(r.Header.Get("X-Request-ID"))
		f := mockserver.FaultNone
		m.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), faultKey{}, &f)))
		done(f)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, m
}

// faultRecord is the part of a profile_export.jsonl line these tests read.
type faultRecord struct {
	Metadata struct {
		SessionNum        int    `json:"session_num"`
		XRequestID        string `json:"x_request_id"`
		ConversationID    string `json:"conversation_id"`
		ConnectionRetries int    `json:"connection_retries"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"metrics"`
	Error *struct {
		Code    *int   `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// scalar returns a record metric's scalar value.
func (r *faultRecord) scalar(tag string) (float64, bool) {
	m, ok := r.Metrics[tag]
	if !ok {
		return 0, false
	}
	var v float64
	if json.Unmarshal(m.Value, &v) != nil {
		return 0, false
	}
	return v, true
}

func readFaultRecords(t *testing.T, dir string) []faultRecord {
	t.Helper()
	var out []faultRecord
	for _, l := range lines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var r faultRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// faultErrorSummary reads error_summary as "code|type" -> count, with code
// "null" when absent.
func faultErrorSummary(t *testing.T, doc map[string]json.RawMessage) map[string]int {
	t.Helper()
	var rows []struct {
		ErrorDetails struct {
			Code *int   `json:"code"`
			Type string `json:"type"`
		} `json:"error_details"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal(doc["error_summary"], &rows); err != nil {
		t.Fatalf("error_summary: %v", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[faultCodeType(r.ErrorDetails.Code, r.ErrorDetails.Type)] += r.Count
	}
	return out
}

func faultCodeType(code *int, typ string) string {
	c := "null"
	if code != nil {
		c = fmt.Sprint(*code)
	}
	return c + "|" + typ
}

// faultOutcome is what a fault must leave on its record: an error with this
// code and type, or (valid) a good record.
type faultOutcome struct {
	valid    bool
	codeType string // "code|type", code "null" for none
}

// faultOutcomes is docs/faults.md's table. The same outcome holds for
// streaming and non-streaming requests except where noted in nonStreaming.
var faultOutcomes = map[mockserver.Fault]faultOutcome{
	mockserver.FaultHTTP429:            {codeType: "429|Too Many Requests"},
	mockserver.FaultHTTP500:            {codeType: "500|Internal Server Error"},
	mockserver.FaultHTTP503:            {codeType: "503|Service Unavailable"},
	mockserver.FaultResetBeforeHeaders: {codeType: "null|ConnectionError"},
	mockserver.FaultResetMidStream:     {codeType: "null|StreamError"},
	mockserver.FaultTruncatedStream:    {valid: true},
	mockserver.FaultMalformedChunk:     {codeType: "null|JSONDecodeError"},
	mockserver.FaultEmptyChoices:       {codeType: "null|InvalidInferenceResultError"},
	mockserver.FaultSlowHeaders:        {valid: true},
	mockserver.FaultStall:              {codeType: "null|TimeoutError"},
	mockserver.FaultHugeChunk:          {valid: true},
	mockserver.FaultInvalidUTF8:        {valid: true},
	mockserver.FaultWrongContentType:   {codeType: "null|JSONDecodeError"},
}

// nonStreamingOutcomes override faultOutcomes for non-streaming requests:
// a non-streaming body cut in half is not JSON.
var nonStreamingOutcomes = map[mockserver.Fault]faultOutcome{
	mockserver.FaultTruncatedStream: {codeType: "null|JSONDecodeError"},
}

func outcome(f mockserver.Fault, streaming bool) faultOutcome {
	if o, ok := nonStreamingOutcomes[f]; ok && !streaming {
		return o
	}
	return faultOutcomes[f]
}

func faultConfig(t *testing.T, url string, streaming bool, n int) *config.Config {
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = streaming
	cfg.Endpoint.TimeoutSeconds = faultRequestTimeout
	cfg.Load.RequestCount = ptr(n)
	cfg.Load.Concurrency = ptr(2)
	cfg.Output.ExportLevel = config.ExportRaw // the raw export must survive every fault too
	return cfg
}

// TestRunEachFault forces one fault on every request of a small run, for
// every fault, streaming and not, and checks every record and the summary.
func TestRunEachFault(t *testing.T) {
	t.Parallel()
	const n = 4
	for _, f := range mockserver.Faults() {
		for _, streaming := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", f, streaming), func(t *testing.T) {
				t.Parallel()
				url, m := faultMock(t, func(c *mockserver.Config) {
					c.Faults = []mockserver.FaultRate{{Fault: f, Rate: 1}}
				}, nil)
				cfg := faultConfig(t, url, streaming, n)
				if f == mockserver.FaultStall {
					cfg.Endpoint.TimeoutSeconds = stallTimeout
				}
				want := outcome(f, streaming)
				out, err := run(t, context.Background(), cfg)
				if want.valid && err != nil {
					t.Fatalf("Run: %v\n%s", err, out)
				}
				if !want.valid && exitCode(err) != config.ExitFailure {
					// Every request failed: the run completes, writes its
					// artifacts and says so in its exit code.
					t.Fatalf("Run = %v (exit %d); want exit %d after all requests failed\n%s", err, exitCode(err), config.ExitFailure, out)
				}
				if got := m.InjectedFaults()[f]; got != n {
					t.Fatalf("the mock injected %s %d times; want %d", f, got, n)
				}
				dir := cfg.Output.ArtifactDir
				recs := readFaultRecords(t, dir)
				if len(recs) != n {
					t.Fatalf("JSONL has %d records; want %d", len(recs), n)
				}
				lines(t, filepath.Join(dir, "profile_export_raw.jsonl")) // every line valid JSON
				for _, r := range recs {
					switch {
					case want.valid && r.Error != nil:
						t.Errorf("record %d: error %+v; want a good record", r.Metadata.SessionNum, *r.Error)
					case !want.valid && r.Error == nil:
						t.Errorf("record %d: no error; want %s", r.Metadata.SessionNum, want.codeType)
					case !want.valid && faultCodeType(r.Error.Code, r.Error.Type) != want.codeType:
						t.Errorf("record %d: error %s (%q); want %s", r.Metadata.SessionNum,
							faultCodeType(r.Error.Code, r.Error.Type), r.Error.Message, want.codeType)
					case !want.valid:
						for tag := range r.Metrics {
							if tag == "time_to_first_token" || tag == "request_latency" || tag == "inter_token_latency" {
								t.Errorf("error record %d has latency metric %s", r.Metadata.SessionNum, tag)
							}
						}
					}
				}
				doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
				errs := faultErrorSummary(t, doc)
				if want.valid {
					if len(errs) != 0 {
						t.Errorf("error_summary = %v; want none", errs)
					}
					if got := avg(t, doc, "request_count"); got != n {
						t.Errorf("request_count = %v; want %d", got, n)
					}
					return
				}
				if errs[want.codeType] != n || len(errs) != 1 {
					t.Errorf("error_summary = %v; want {%s: %d}", errs, want.codeType, n)
				}
				// One fault, one message: messages must not vary per request
				// (no ports, no ids), or error_summary splits into one row each.
				var rows []json.RawMessage
				if err := json.Unmarshal(doc["error_summary"], &rows); err != nil || len(rows) != 1 {
					t.Errorf("error_summary has %d rows; want 1: %s", len(rows), doc["error_summary"])
				}
				t.Logf("%s: %s", f, doc["error_summary"])
				if got := avg(t, doc, "error_request_count"); got != n {
					t.Errorf("error_request_count = %v; want %d", got, n)
				}
				if _, ok := doc["time_to_first_token"]; ok {
					t.Errorf("summary has time_to_first_token with no good request")
				}
			})
		}
	}
}

// TestRunFaultsLeaveGoodRequestsUnchanged runs the same benchmark twice, at
// the same time, one request at a time, against two mocks with a fixed
// latency (TTFT 20 ms, ITL 2 ms, no jitter) and the same seeds: one clean,
// one with every fault at 4% (52% of requests faulted). In the faulty run:
//   - every faulted request has its fault's outcome and every other one is
//     good;
//   - error_request_count and error_summary match the faults the mock says
//     it injected (less the resets before the headers on a reused
//     connection, which are resent and have the resend's outcome), and the
//     latency statistics count good records only;
//   - each good, unfaulted request has exactly the clean run's ISL and OSL
//     for the same session, and the TTFT medians agree within 5 ms.
//
// The tolerance: the mock answers on absolute deadlines (arrival + 20 ms),
// so a TTFT is 20 ms plus scheduling delay on a shared two-core machine;
// running both benchmarks concurrently exposes them to the same load.
// One request at a time, so a fault cannot change the load under which an
// unrelated request runs; a fault's CPU cost (a 1 MiB chunk to parse) must
// not move the median of ~35 unrelated requests by more than a few
// milliseconds (observed: 0.1-0.3 ms apart; about 1 ms under -race). Contamination by faulty records themselves is checked
// exactly, record by record, not through this tolerance.
func TestRunFaultsLeaveGoodRequestsUnchanged(t *testing.T) {
	t.Parallel()
	const n = 80
	latency := func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = 20*time.Millisecond, 2*time.Millisecond
		c.RandomSeed, c.SeedSet = 10, true // a seed that injects every kind at least twice in 80 draws
	}
	// byID lists each request's faults, one per attempt: a reset before
	// the headers on a reused connection is resent (connection_retries),
	// and the resend draws its own fault.
	runOnce := func(t *testing.T, faults bool) (map[int]faultRecord, map[string]json.RawMessage, map[string][]mockserver.Fault, *mockserver.Server) {
		var mu sync.Mutex
		byID := map[string][]mockserver.Fault{}
		url, m := faultMock(t, func(c *mockserver.Config) {
			latency(c)
			if faults {
				for _, f := range mockserver.Faults() {
					c.Faults = append(c.Faults, mockserver.FaultRate{Fault: f, Rate: 0.04})
				}
			}
		}, func(id string) func(mockserver.Fault) {
			mu.Lock()
			defer mu.Unlock()
			i := len(byID[id])
			byID[id] = append(byID[id], mockserver.FaultNone)
			return func(f mockserver.Fault) {
				mu.Lock()
				defer mu.Unlock()
				byID[id][i] = f
			}
		})
		cfg := faultConfig(t, url, true, n)
		// One request at a time: a request that fails fast must not
		// lighten the load on the next ones and so shorten their TTFT.
		cfg.Load.Concurrency = ptr(1)
		// The timeout ends each stall (the mock holds it until the client
		// leaves), so it costs one timeout per stall; it must also stay
		// well above a good request's time (about 35 ms, a huge_chunk one
		// parsing 1 MiB more) on a shared machine whose load can slow the
		// client several-fold: 0.25 s was exceeded by a huge_chunk record
		// at a load average of 11 on two cores.
		cfg.Endpoint.TimeoutSeconds = 1
		cfg.Output.ExportLevel = config.ExportRecords
		out, err := run(t, context.Background(), cfg)
		if err != nil {
			t.Fatalf("Run (faults %v): %v\n%s", faults, err, out)
		}
		recs := map[int]faultRecord{}
		for _, r := range readFaultRecords(t, cfg.Output.ArtifactDir) {
			recs[r.Metadata.SessionNum] = r
		}
		if len(recs) != n {
			t.Fatalf("faults %v: %d records; want %d", faults, len(recs), n)
		}
		return recs, summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json")), byID, m
	}
	// Both runs at once, so that whatever else loads the machine loads
	// both alike.
	var (
		clean, faulty map[int]faultRecord
		doc           map[string]json.RawMessage
		byID          map[string][]mockserver.Fault
		m             *mockserver.Server
	)
	t.Run("runs", func(t *testing.T) {
		t.Run("clean", func(t *testing.T) {
			t.Parallel()
			var cleanFaults map[string][]mockserver.Fault
			clean, _, cleanFaults, _ = runOnce(t, false)
			for id, fs := range cleanFaults {
				if len(fs) != 1 || fs[0] != mockserver.FaultNone {
					t.Fatalf("the clean run injected %v into %s", fs, id)
				}
			}
		})
		t.Run("faulty", func(t *testing.T) {
			t.Parallel()
			faulty, doc, byID, m = runOnce(t, true)
		})
	})
	if t.Failed() {
		t.FailNow()
	}

	wantErrs := map[string]int{}
	nErr, nValid := 0, 0
	injected := m.InjectedFaults()
	attempted := map[mockserver.Fault]int64{}
	for _, fs := range byID {
		for _, f := range fs {
			attempted[f]++
		}
	}
	for f, k := range injected {
		if k == 0 {
			t.Errorf("the mock never injected %s; the seed must exercise every fault", f)
		}
		if attempted[f] != k {
			t.Errorf("the mock injected %s %d times; the requests it answered had it %d times", f, k, attempted[f])
		}
	}
	var cleanTTFT, faultyTTFT []float64
	for s, r := range faulty {
		// The outcome is the last attempt's; every earlier one was a
		// reset before the headers on a reused connection, resent.
		fs := byID[r.Metadata.XRequestID]
		if len(fs) == 0 {
			t.Errorf("session %d: the mock never answered request %s", s, r.Metadata.XRequestID)
			continue
		}
		if r.Metadata.ConnectionRetries != len(fs)-1 {
			t.Errorf("session %d: connection_retries %d; the mock saw %d attempts", s, r.Metadata.ConnectionRetries, len(fs))
		}
		for _, early := range fs[:len(fs)-1] {
			if early != mockserver.FaultResetBeforeHeaders {
				t.Errorf("session %d: resent after %q; only a reset before the headers is resent", s, early)
			}
		}
		f := fs[len(fs)-1]
		want := faultOutcome{valid: true}
		if f != mockserver.FaultNone {
			want = outcome(f, true)
		}
		switch {
		case want.valid && r.Error != nil:
			t.Errorf("session %d (fault %q): error %+v; want a good record", s, f, *r.Error)
			continue
		case !want.valid && (r.Error == nil || faultCodeType(r.Error.Code, r.Error.Type) != want.codeType):
			t.Errorf("session %d (fault %q): error %+v; want %s", s, f, r.Error, want.codeType)
			continue
		case !want.valid:
			wantErrs[want.codeType]++
			nErr++
			continue
		}
		nValid++
		if f != mockserver.FaultNone || len(fs) > 1 {
			// Good, but the fault (or the first attempt's) changed its
			// numbers (slow_headers, truncated_stream, invalid_utf8) or not.
			continue
		}
		c := clean[s]
		if c.Metadata.ConversationID != r.Metadata.ConversationID {
			t.Fatalf("session %d: conversation %s in the faulty run, %s in the clean one", s, r.Metadata.ConversationID, c.Metadata.ConversationID)
		}
		for _, tag := range []string{"input_sequence_length", "output_sequence_length"} {
			got, ok1 := r.scalar(tag)
			want, ok2 := c.scalar(tag)
			if !ok1 || !ok2 || got != want {
				t.Errorf("session %d: %s = %v (%v) with faults, %v (%v) without", s, tag, got, ok1, want, ok2)
			}
		}
		ft, ok1 := r.scalar("time_to_first_token")
		ct, ok2 := c.scalar("time_to_first_token")
		if !ok1 || !ok2 || ft < 20 || ct < 20 {
			t.Errorf("session %d: TTFT %v ms with faults, %v ms without; want both >= the mock's 20 ms", s, ft, ct)
		}
		faultyTTFT, cleanTTFT = append(faultyTTFT, ft), append(cleanTTFT, ct)
	}
	if nErr+nValid != n {
		t.Errorf("%d error records and %d good records; want %d in all (injected: %v)", nErr, nValid, n, injected)
	}
	// Every error-kind fault the mock injected is an error record, or the
	// first attempt of a resent one.
	injectedErrs, resends := 0, 0
	for f, k := range injected {
		if !outcome(f, true).valid {
			injectedErrs += int(k)
		}
	}
	for _, r := range faulty {
		resends += r.Metadata.ConnectionRetries
	}
	if injectedErrs != nErr+resends {
		t.Errorf("the mock injected %d error-kind faults; want the %d error records plus the %d resends (injected: %v)", injectedErrs, nErr, resends, injected)
	}
	if len(faultyTTFT) < 15 {
		t.Fatalf("only %d unfaulted requests to compare", len(faultyTTFT))
	}
	t.Logf("injected %v: %d errors, %d good (%d unfaulted); median TTFT %.2f ms with faults, %.2f ms without",
		injected, nErr, nValid, len(faultyTTFT), median(faultyTTFT), median(cleanTTFT))
	if d := median(faultyTTFT) - median(cleanTTFT); d > 5 || d < -5 {
		t.Errorf("median TTFT of unfaulted requests: %.2f ms with faults, %.2f ms without; want within 5 ms",
			median(faultyTTFT), median(cleanTTFT))
	}
	if got := avg(t, doc, "error_request_count"); int(got) != nErr {
		t.Errorf("error_request_count = %v; the mock injected %d error-kind faults (%v)", got, nErr, injected)
	}
	if got := avg(t, doc, "request_count"); int(got) != nValid {
		t.Errorf("request_count = %v; want %d good records", got, nValid)
	}
	got := faultErrorSummary(t, doc)
	if fmt.Sprint(got) != fmt.Sprint(wantErrs) {
		t.Errorf("error_summary = %v; want %v from the mock's counts", got, wantErrs)
	}
	var ttft struct{ Count int }
	if err := json.Unmarshal(doc["time_to_first_token"], &ttft); err != nil || ttft.Count != nValid {
		t.Errorf("time_to_first_token count = %d (%v); want the %d good records only", ttft.Count, err, nValid)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
