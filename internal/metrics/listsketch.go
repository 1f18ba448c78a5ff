package metrics

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// DefaultListExactLimit is how many values a list metric (inter_chunk_latency)
// keeps exactly before its column is replaced by a t-digest: 1,000,000
// values, 8 MB. Below it results equal AIPerf's default ("ragged", exact)
// backend; above it memory stays flat (about 24 KiB per list metric) as with
// AIPerf's "tdigest" backend, and only the percentiles become approximate
// (stats.RankErrorBound). A typical run (thousands of requests of a few
// hundred tokens) never reaches it.
const DefaultListExactLimit = 1_000_000

// ListSketch configures when record metrics switch from exact columns to
// a t-digest. The zero value means DefaultListExactLimit for list metrics,
// exact scalar record metrics whatever the count, and
// stats.DefaultCompression.
type ListSketch struct {
	// ExactLimit is the most values kept exactly per list metric; the value
	// that would exceed it moves the metric to a sketch. 0 means
	// DefaultListExactLimit; a negative value keeps every value exactly
	// (unbounded memory, AIPerf's default backend).
	ExactLimit int
	// ScalarExactLimit, when > 0, does the same for scalar record metrics
	// (one value per request: TTFT, request latency, ...) past that many
	// records, so that memory stays flat however long the run. 0 keeps
	// them exact, as AIPerf does: 8 bytes per metric per record.
	ScalarExactLimit int
	// Compression is the t-digest δ; 0 means stats.DefaultCompression
	// (AIPerf's AIPERF_METRICS_TDIGEST_COMPRESSION default, 500).
	Compression float64
}

func (l ListSketch) limit() int {
	if l.ExactLimit == 0 {
		return DefaultListExactLimit
	}
	return l.ExactLimit
}

func (l ListSketch) compression() float64 {
	if l.Compression == 0 {
		return stats.DefaultCompression
	}
	return l.Compression
}

// SetListSketch sets when list metrics switch to a sketch. Call it before
// the first Add; values already folded are not revisited.
func (a *Accumulator) SetListSketch(l ListSketch) { a.list = l }

// addScalar folds one scalar record value into metric idx: exactly, or into
// its sketch once the column passed ScalarExactLimit.
func (a *Accumulator) addScalar(idx int, v float64) {
	if sk := a.sketches[idx]; sk != nil {
		sk.Add(v)
		return
	}
	a.cols[idx] = append(a.cols[idx], v)
	if l := a.list.ScalarExactLimit; l > 0 && len(a.cols[idx]) > l {
		a.toSketch(idx, nil)
	}
}

// toSketch moves metric idx's exact values, then vs, into a new sketch and
// releases the column.
func (a *Accumulator) toSketch(idx int, vs []float64) {
	sk := stats.NewTDigest(a.list.compression())
	for _, v := range a.cols[idx] {
		sk.Add(v)
	}
	for _, v := range vs {
		sk.Add(v)
	}
	a.cols[idx] = nil
	a.sketches[idx] = sk
}

// addList folds one record's list values into metric idx: exactly while the
// column stays within the limit, otherwise into the metric's sketch (the
// exact values gathered so far move into it first and their column is
// released, so memory stops growing).
func (a *Accumulator) addList(idx int, vs []float64) {
	if sk := a.sketches[idx]; sk != nil {
		for _, v := range vs {
			sk.Add(v)
		}
		return
	}
	limit := a.list.limit()
	if limit < 0 || len(a.cols[idx])+len(vs) <= limit {
		a.cols[idx] = append(a.cols[idx], vs...)
		return
	}
	a.toSketch(idx, vs)
}

// Sketched returns the tags of the record metrics whose percentiles come from
// a t-digest because they passed the exact limit, in dependency order, so
// the run can log which backend produced each result.
func (a *Accumulator) Sketched() []string {
	var out []string
	for _, m := range a.metrics {
		if a.sketches[m.idx] != nil {
			out = append(out, m.Tag)
		}
	}
	return out
}

// recordStats summarises record metric m: exact from its column, or from
// its sketch (exact count, sum, min, max, avg and std; approximate
// percentiles). ok is false when it has no values.
func (a *Accumulator) recordStats(m *Metric) (Stats, bool) {
	if sk := a.sketches[m.idx]; sk != nil {
		return toStats(sk.Summary()), sk.Count() > 0
	}
	col := a.cols[m.idx]
	if len(col) == 0 {
		return Stats{}, false
	}
	return toStats(stats.Summarize(col)), true // sorting the column is harmless
}
