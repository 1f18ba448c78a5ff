package loader

import (
	"errors"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TraceStats describes a mooncake trace without running it (aiperf
// analyze-trace), with AIPerf's AnalysisStats fields and JSON names: the
// distributions of input, output, shared-context and unique-prompt
// lengths and the theoretical prefix-cache hit rate.
type TraceStats struct {
	TotalRequests int `json:"total_requests"`
	// UniquePrefixes is the number of distinct hash-id prefixes
	// (h1), (h1,h2), ... over all requests.
	UniquePrefixes int `json:"unique_prefixes"`
	// NumPrefixGroups is the number of first blocks that start two or
	// more requests.
	NumPrefixGroups int `json:"num_prefix_groups"`
	// CacheHitRate is the theoretical hit rate of an infinite cache: per
	// request with hash ids, the fraction of them before the first one no
	// earlier request used, averaged.
	CacheHitRate float64 `json:"cache_hit_rate"`
	MinISL       int     `json:"min_isl"`
	MaxISL       int     `json:"max_isl"`
	AvgISL       float64 `json:"avg_isl"`
	MinOSL       int     `json:"min_osl"`
	MaxOSL       int     `json:"max_osl"`
	AvgOSL       float64 `json:"avg_osl"`
	// PrefixReuseRatio is the share of prefix occurrences whose prefix
	// occurs more than once.
	PrefixReuseRatio float64 `json:"prefix_reuse_ratio"`
	ISL              *Dist   `json:"isl_stats"`
	OSL              *Dist   `json:"osl_stats"`
	// ContextLength is, per request, the tokens of its blocks whose
	// (position, hash id) occurs in more than one request (its whole input
	// when all do); UniquePromptLength is the rest of its input.
	ContextLength      *Dist `json:"context_length_stats"`
	UniquePromptLength *Dist `json:"unique_prompt_length_stats"`
	HitRate            *Dist `json:"hit_rate_stats"`
	// BlockSize is the block size the analysis assumed (not in AIPerf's
	// JSON).
	BlockSize int `json:"-"`
}

// Dist summarises a list of values as AIPerf's MetricStats: population
// standard deviation and linearly interpolated percentiles (numpy's
// defaults).
type Dist struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"std_dev"`
	Min    float64 `json:"min"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	Max    float64 `json:"max"`
}

// AnalyzeTrace reads a mooncake trace and returns its statistics.
// input_length and output_length count 0 when absent; every malformed
// line is reported with its file, line and field.
func AnalyzeTrace(path string, blockSize int) (*TraceStats, error) {
	if blockSize <= 0 {
		blockSize = DefaultMooncakeBlockSize
	}
	var isls, osls []int
	var hashes [][]int
	var p problems
	p.eachLine(path, func(n int, line []byte) error {
		r, err := parseRow(line)
		if err != nil {
			return err
		}
		in, _, err := r.int("input_length")
		if err != nil {
			return &dataset.InputError{File: path, Line: n, Field: "input_length", Err: err}
		}
		out, _, err := r.int("output_length")
		if err != nil {
			return &dataset.InputError{File: path, Line: n, Field: "output_length", Err: err}
		}
		ids, _, err := r.ints("hash_ids")
		if err != nil {
			return &dataset.InputError{File: path, Line: n, Field: "hash_ids", Err: err}
		}
		isls, osls, hashes = append(isls, in), append(osls, out), append(hashes, ids)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	if len(isls) == 0 {
		return nil, &dataset.InputError{File: path, Err: errors.New("the trace is empty")}
	}
	return traceStats(isls, osls, hashes, blockSize), nil
}

func traceStats(isls, osls []int, hashes [][]int, blockSize int) *TraceStats {
	s := &TraceStats{TotalRequests: len(isls), BlockSize: blockSize}
	prefixes := map[string]int{}
	type posID struct{ pos, id int }
	positions := map[posID]int{}
	firsts := map[int]int{}
	for _, ids := range hashes {
		if len(ids) == 0 {
			continue
		}
		firsts[ids[0]]++
		var key strings.Builder
		for i, id := range ids {
			key.WriteString(strconv.Itoa(id))
			key.WriteByte(',')
			prefixes[key.String()]++
			positions[posID{i, id}]++
		}
	}
	s.UniquePrefixes = len(prefixes)
	for _, c := range firsts {
		if c > 1 {
			s.NumPrefixGroups++
		}
	}
	reused, total := 0, 0
	for _, c := range prefixes {
		total += c
		if c > 1 {
			reused += c
		}
	}
	if total > 0 {
		s.PrefixReuseRatio = float64(reused) / float64(total)
	}
	var context, unique, hits []float64
	seen := map[int]bool{}
	for i, ids := range hashes {
		if len(ids) == 0 {
			context = append(context, 0)
			unique = append(unique, float64(isls[i]))
			continue
		}
		repeated := 0
		for pos, id := range ids {
			if positions[posID{pos, id}] > 1 {
				repeated++
			}
		}
		if repeated == len(ids) {
			context = append(context, float64(isls[i]))
			unique = append(unique, 0)
		} else {
			context = append(context, float64(repeated*blockSize))
			unique = append(unique, float64(isls[i]-repeated*blockSize))
		}
		first := len(ids)
		for j, id := range ids {
			if !seen[id] {
				first = j
				break
			}
		}
		hits = append(hits, float64(first)/float64(len(ids)))
		for _, id := range ids {
			seen[id] = true
		}
	}
	s.ISL, s.OSL = dist(floats(isls)), dist(floats(osls))
	s.ContextLength, s.UniquePromptLength, s.HitRate = dist(context), dist(unique), dist(hits)
	if s.HitRate != nil {
		s.CacheHitRate = s.HitRate.Mean
	}
	s.MinISL, s.MaxISL, s.AvgISL = slices.Min(isls), slices.Max(isls), s.ISL.Mean
	s.MinOSL, s.MaxOSL, s.AvgOSL = slices.Min(osls), slices.Max(osls), s.OSL.Mean
	return s
}

func floats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// dist returns the summary of v, nil when v is empty.
func dist(v []float64) *Dist {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	ss := 0.0
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	pct := func(q float64) float64 { return stats.Percentile(s, q) }
	return &Dist{Mean: mean, Stddev: math.Sqrt(ss / float64(len(s))), Min: s[0],
		P25: pct(25), Median: pct(50), P75: pct(75), Max: s[len(s)-1]}
}
