package metrics

import (
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// recordFunc computes a record metric, or an aggregate metric's per-record
// contribution, in the metric's base unit. ok == false is AIPerf's
// NoMetricValue: the metric does not apply to this record.
type recordFunc func(c *recordContext) (v float64, ok bool)

// listFunc computes a list-valued record metric in base units.
type listFunc func(c *recordContext) (vs []float64, ok bool)

// deriveFunc computes a derived metric from run-level results, in base units.
type deriveFunc func(c *deriveContext) (v float64, ok bool)

// count is an optional token count.
type count struct {
	n  int64
	ok bool
}

// tokenCounts are a record's input, output and reasoning token counts as
// AIPerf's TokenCounts: each may be unknown.
type tokenCounts struct {
	input, output, reasoning count
}

// content is one content response: a chunk with text or reasoning.
type content struct {
	at     time.Duration
	output bool // carries non-reasoning text (AIPerf's "first output token")
}

// recordContext is everything a per-record metric may read. It lives for one
// Process call.
type recordContext struct {
	reg      *Registry
	rec      *record.Record
	content  []content
	usage    *record.Usage     // from the last chunk that had a non-empty usage
	video    record.VideoStats // each figure from the first response that reported it
	done     bool              // a chunk was the [DONE] terminator
	finished bool              // a chunk gave a finish_reason
	tokens   tokenCounts
	startNs  int64 // wall-clock Unix ns of rec.Sent
	// outputSeen reports a content response that carried output: text, or
	// (with NonTextOutputTokens) a non-text answer. The output's tokens
	// are then counted, 0 for an answer without text.
	outputSeen bool

	slos       []slo
	thresholds Thresholds
	log        *slog.Logger

	vals []float64 // base-unit values by metric index
	has  []bool

	// text and reasoning join the record's output and reasoning texts.
	text, reasoning textJoin
	// gathered collects the record's metric values before they are
	// copied into Processed.Values.
	gathered []Value
}

// textJoin concatenates a record's texts. One piece (a non-streaming
// answer) is kept as it is, with no copy; several are joined in a buffer
// that is reused from record to record, so the joined text costs one
// allocation, its string.
type textJoin struct {
	first string
	buf   []byte
	n     int // pieces added
}

func (t *textJoin) add(s string) {
	if s == "" {
		return
	}
	switch t.n {
	case 0:
		t.first = s
	case 1:
		t.buf = append(append(t.buf[:0], t.first...), s...)
	default:
		t.buf = append(t.buf, s...)
	}
	t.n++
}

// String returns the joined text.
func (t *textJoin) String() string {
	if t.n <= 1 {
		return t.first
	}
	return string(t.buf)
}

// keep makes s, the String already taken, what later String calls return,
// so that the text is not copied twice.
func (t *textJoin) keep(s string) { t.first, t.n = s, 1 }

func (t *textJoin) reset() { t.first, t.buf, t.n = "", t.buf[:0], 0 }

// value returns the base-unit value already computed for tag on this record.
func (c *recordContext) value(tag string) (float64, bool) {
	m, ok := c.reg.byTag[tag]
	if !ok || !c.has[m.idx] {
		return 0, false
	}
	return c.vals[m.idx], true
}

// values returns the base-unit values of several tags, and whether all are
// present.
func (c *recordContext) values(tags ...string) ([]float64, bool) {
	out := make([]float64, len(tags))
	for i, t := range tags {
		v, ok := c.value(t)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// warn logs a metric that could not be computed because its inputs were
// inconsistent (AIPerf logs these as warnings and skips the value).
func (c *recordContext) warn(tag, msg string, args ...any) {
	if c.log != nil {
		c.log.Warn("metric not computed: "+msg, append([]any{"metric", tag, "x_request_id", c.rec.XRequestID}, args...)...)
	}
}

// deriveContext is what derived metrics read: run-level values in base
// units (record metrics contribute their sum, as in AIPerf's results dict).
type deriveContext struct {
	reg  *Registry
	vals []float64
	has  []bool

	// duration is the exact benchmark duration in ns, computed from integer
	// offsets rather than from float wall-clock timestamps.
	duration    time.Duration
	hasDuration bool
	// window, when set, is the observation window that throughputs divide
	// by (AIPerf 0.13 uses the phase's start-to-last-response window; see
	// Accumulator.SetPhaseStart).
	window time.Duration
	// dist holds record metrics' distributions (display units) by registry
	// index, for derived metrics that read a percentile (replay_sched_lag).
	dist []*Stats
}

// stats returns the distribution of record metric tag, in its display unit.
func (c *deriveContext) stats(tag string) (*Stats, bool) {
	m, ok := c.reg.byTag[tag]
	if !ok || !c.has[m.idx] || c.dist == nil || c.dist[m.idx] == nil {
		return nil, false
	}
	return c.dist[m.idx], true
}

func (c *deriveContext) value(tag string) (float64, bool) {
	m, ok := c.reg.byTag[tag]
	if !ok || !c.has[m.idx] {
		return 0, false
	}
	return c.vals[m.idx], true
}

// observationSeconds is the denominator of throughput metrics: the window
// when one is set, else the benchmark duration; never zero.
func (c *deriveContext) observationSeconds() (float64, bool) {
	var ns float64
	if c.window > 0 {
		ns = float64(c.window)
	} else {
		d, ok := c.value(tagBenchmarkDuration)
		if !ok {
			return 0, false
		}
		ns = d
	}
	sec := ns * nsToSec
	if sec == 0 {
		return 0, false
	}
	return sec, true
}
