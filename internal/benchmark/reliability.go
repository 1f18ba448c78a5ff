package benchmark

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// DefaultConnectionLimit is AIPerf's AIPERF_HTTP_CONNECTION_LIMIT default:
// the most connections its HTTP client opens at once.
const DefaultConnectionLimit = 2500

// envConnectionLimit is AIPerf's cap on the connections open at once.
const envConnectionLimit = "AIPERF_HTTP_CONNECTION_LIMIT"

// connectionLimit is AIPERF_HTTP_CONNECTION_LIMIT (1-65000, as AIPerf
// accepts it), or DefaultConnectionLimit when unset or out of range (a
// value out of range is warned about: checkHTTPEnv).
func connectionLimit(env environ.Snapshot) int {
	n, _ := parseConnectionLimit(env.Getenv(envConnectionLimit))
	return n
}

// parseConnectionLimit is the limit of v, a value of envConnectionLimit;
// DefaultConnectionLimit when v is empty, or, with ok false, when it is
// not a whole number from 1 to 65000.
func parseConnectionLimit(v string) (n int, ok bool) {
	if v == "" {
		return DefaultConnectionLimit, true
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 65000 {
		return DefaultConnectionLimit, false
	}
	return n, true
}

// capsInFlight reports whether the run's request-rate phases, which set
// no --concurrency, are held to connectionLimit() requests in flight, as
// AIPerf's connector holds them to its connection limit. Without it an
// overloaded client (or server) dialled a connection for every late
// request: 13,000 connects of 10 s each and 1.1 GB at 10,000 requests/s
// (BENCHMARKS.md, "Connection set-up, HTTP trace, the machine's ceiling"). The credits over the cap wait in the
// scheduler with their scheduled due times, so the wait is schedule lag.
// Only single-turn runs in this process: a multi-turn conversation holds
// its credit through think times that hold no connection, user-centric
// users are each a session. Load workers cap their own transports the
// same way (the controller's schedule stays uncapped).
func capsInFlight(plan *Plan) bool {
	if plan.Sessions.MultiTurn || plan.Adaptive != nil {
		return false
	}
	phases := plan.Phases
	if len(phases) == 0 {
		phases = []*PhaseSpec{&plan.Profiling}
		if plan.Warmup != nil {
			phases = append(phases, plan.Warmup)
		}
	}
	for _, ph := range phases {
		if ph.Users > 0 {
			return false
		}
	}
	return true
}

// transportReuse maps --connection-reuse-strategy onto the transport's.
// Validation has rejected unknown names; they pool.
func transportReuse(cfg *config.Config) transport.Reuse {
	switch cfg.ConnectionReuseStrategy() {
	case config.ReuseNever:
		return transport.ReuseNever
	case config.ReuseSticky:
		return transport.ReuseSticky
	}
	return transport.ReusePooled
}

// poolCap is the transport's cap on connections per host under the pooled
// strategy: the most credits any phase may hold outstanding, so a pool of
// that many connections serves the run, as AIPerf's connector limit does.
// Without the cap net/http may dial an extra connection when the next
// request starts before the previous response's connection is back in the
// idle pool (it is returned asynchronously after the body's EOF), and that
// request then pays a connect inside its TTFT. 0 (no cap) when some phase
// is unbounded (request rate without --concurrency, user-centric), when
// adaptive scale moves the limit, or for the other strategies (never opens
// one connection per request; sticky leases its own per session).
func poolCap(plan *Plan) int {
	if transportReuse(plan.Config) != transport.ReusePooled || plan.Adaptive != nil {
		return 0
	}
	phases := plan.Phases
	if len(phases) == 0 {
		phases = []*PhaseSpec{&plan.Profiling}
		if plan.Warmup != nil {
			phases = append(phases, plan.Warmup)
		}
	}
	limit := 0
	for _, ph := range phases {
		if ph.Concurrency <= 0 || ph.Users > 0 {
			if capsInFlight(plan) {
				return connectionLimit(plan.Env)
			}
			return 0
		}
		limit = max(limit, ph.Concurrency)
	}
	return limit
}

// datasetKeep is how many conversations of an --input-file the run can
// send, when that is known before reading it: the run samples in order
// (the format's default or --dataset-sampling-strategy sequential) and
// every phase stops after a number of requests or sessions. Each
// conversation gives at least one request, so the first that many are all
// it can use; the loader keeps only those (0: keep every one). A duration
// bound, random sampling or a shuffle may reach any entry.
func (p *Plan) datasetKeep() int {
	if s := p.Config.Dataset.SamplingStrategy; (s != "" && string(s) != dataset.SamplingSequential) || p.Config.Replay.FixedSchedule {
		return 0
	}
	need := func(s *PhaseSpec) int {
		if s.Sessions > 0 {
			return s.Sessions
		}
		return s.Count // 0 when only a duration bounds the phase
	}
	n := need(&p.Profiling)
	if n == 0 {
		return 0
	}
	if p.Warmup != nil {
		w := need(p.Warmup)
		if w == 0 {
			return 0
		}
		n += w
	}
	return n
}

// secretsOf lists the run's credentials (config.Secrets): the API key,
// the values of sensitive headers and --extra-inputs fields, URL userinfo.
func secretsOf(cfg *config.Config) [][]byte {
	var out [][]byte
	for _, s := range cfg.Secrets() {
		out = append(out, []byte(s))
	}
	return out
}

// scrubRecord replaces every credential in what the server sent back (an
// error body that echoes the key, a streamed chunk) with "<redacted>",
// the redaction our own copies of the key get, before the record reaches
// the summary, the JSONL, the raw export or the console.
func scrubRecord(rec *record.Record, secrets [][]byte) {
	if len(secrets) == 0 {
		return
	}
	if e := rec.Error; e != nil {
		for _, s := range secrets {
			if strings.Contains(e.Message, string(s)) {
				e.Message = strings.ReplaceAll(e.Message, string(s), config.Redacted)
			}
		}
	}
	for i := range rec.Chunks {
		rec.Chunks[i].Data = scrubbed(rec.Chunks[i].Data, secrets)
	}
}

// scrubbed is b with every credential replaced by "<redacted>" (a request
// body carrying --extra-inputs api_key:..., for the raw export); b itself
// when it has none.
func scrubbed(b []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, []byte(config.Redacted))
		}
	}
	return b
}
