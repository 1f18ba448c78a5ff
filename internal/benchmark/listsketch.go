package benchmark

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Environment variables that size the storage of list metrics
// (inter_chunk_latency): how many values stay exact before the metric moves
// to a t-digest, and that digest's compression. The second is AIPerf's own
// name and range; the first is ours (AIPerf picks its backend with
// AIPERF_METRICS_LIST_BACKEND=ragged|tdigest instead of a threshold).
const (
	// EnvListExactLimit: a count of values (default 1000000); -1 keeps every
	// value exactly, 0 means the default.
	EnvListExactLimit = "AIPERF_METRICS_LIST_EXACT_LIMIT"
	// EnvTDigestCompression: the t-digest δ, 20..10000 (default 500).
	EnvTDigestCompression = "AIPERF_METRICS_TDIGEST_COMPRESSION"
	// EnvRecordExactLimit: a count of records past which scalar record
	// metrics (TTFT, request latency, ...) move to a t-digest too, for runs
	// of many millions of requests; default 0, always exact (AIPerf's
	// behaviour, 8 bytes per metric per request).
	EnvRecordExactLimit = "AIPERF_METRICS_RECORD_EXACT_LIMIT"
)

// listSketchFrom reads the list-metric settings through getenv. Unset
// variables take the defaults; every malformed one is reported, joined, and
// falls back to its default.
func listSketchFrom(getenv func(string) string) (metrics.ListSketch, error) {
	var ls metrics.ListSketch
	var errs []error
	if v := strings.TrimSpace(getenv(EnvListExactLimit)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			errs = append(errs, fmt.Errorf("%s=%q: want a count of values, or -1 for no limit", EnvListExactLimit, v))
		} else {
			ls.ExactLimit = n
		}
	}
	if v := strings.TrimSpace(getenv(EnvRecordExactLimit)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a count of records, or 0 for no limit", EnvRecordExactLimit, v))
		} else {
			ls.ScalarExactLimit = n
		}
	}
	if v := strings.TrimSpace(getenv(EnvTDigestCompression)); v != "" {
		c, err := strconv.Atoi(v)
		if err != nil || c < stats.MinCompression || c > stats.MaxCompression {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer from %d to %d",
				EnvTDigestCompression, v, stats.MinCompression, stats.MaxCompression))
		} else {
			ls.Compression = float64(c)
		}
	}
	return ls, errors.Join(errs...)
}

// envListSketch is listSketchFrom over the process environment; problems
// are logged as warnings (the defaults are used), never fatal.
func envListSketch(env environ.Snapshot, log *slog.Logger) metrics.ListSketch {
	ls, err := listSketchFrom(env.Getenv)
	if err != nil {
		log.Warn("ignoring list-metric settings; using defaults", "error", err)
	}
	return ls
}

// logSketched notes which list metrics passed the exact limit, so a reader
// of the log knows their percentiles are t-digest estimates.
func logSketched(acc *metrics.Accumulator, log *slog.Logger) {
	if tags := acc.Sketched(); len(tags) > 0 {
		log.Info("metrics passed their exact limit; their percentiles are t-digest estimates (count, sum, min, max, avg and std stay exact)",
			"metrics", tags, "limit_env", []string{EnvListExactLimit, EnvRecordExactLimit})
	}
}
