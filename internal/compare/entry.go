// Package compare puts finished benchmarks side by side (`aiperf compare`):
// runs, repeated runs and sweeps, this tool's artifacts or AIPerf's,
// ranked the two ways the token-metric guide (seeds/001) says they must be
// read apart:
//
//   - the capacity ranking, by total tokens/s of the node, with the input
//     tokens/s derived as total - output (the guide's approximation, which
//     works for files that do not export input_token_throughput);
//   - the experience ranking, by output tokens/s per user, next to the
//     prefill tokens/s per user;
//
// plus the change of each figure against a baseline, with Welch's t-test
// when both sides have repeated runs (a difference inside the run-to-run
// noise is not called a change).
package compare

import (
	"fmt"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/results"
)

// Entry is one thing being compared: a run, a repeated run (its means
// across runs) or one point of a sweep.
type Entry struct {
	// Label names the entry in tables: the model, made unique with the
	// artifact directory or the sweep point when needed.
	Label string `json:"label"`
	Model string `json:"model,omitempty"`
	// Concurrency is the configured or swept concurrency; 0 when unknown.
	Concurrency float64 `json:"concurrency,omitempty"`
	// Kind is run, multi-run or sweep (for a sweep point).
	Kind string `json:"kind"`
	// Dir is the artifact directory.
	Dir string `json:"dir"`
	// Runs is how many runs the values average (1 for a single run).
	Runs int `json:"runs"`
	// Version is the aiperf_version that wrote the results, when known.
	Version string `json:"aiperf_version,omitempty"`

	src    source
	agg    *results.Aggregate // for intervals; nil unless a multi-run
	point  string             // the sweep point's "name=value, ..."
	recDir string             // where profile_export.jsonl lives, for metric views
}

// source is what an entry's values come from (results.Summary,
// results.Aggregate, results.Point).
type source interface {
	Value(metric, stat string) (float64, bool)
}

// Value returns stat of metric for the entry (an sla.Source).
func (e *Entry) Value(metric, stat string) (float64, bool) { return e.src.Value(metric, stat) }

// RecordsDir is the directory holding the entry's per-request records,
// "" when it has none of its own (a multi-run or sweep point).
func (e *Entry) RecordsDir() string { return e.recDir }

// Entries reads every artifact at each path (see results.Find) into
// entries, in argument order. Labels are made unique.
func Entries(paths []string) ([]Entry, error) {
	var out []Entry
	for _, p := range paths {
		arts, err := results.Find(p)
		if err != nil {
			return nil, err
		}
		for i := range arts {
			out = append(out, fromArtifact(&arts[i])...)
		}
	}
	uniqueLabels(out)
	return out, nil
}

func fromArtifact(a *results.Artifact) []Entry {
	base := Entry{Dir: a.Dir, Kind: a.Kind.String(), Runs: 1}
	if s := a.Summary; s != nil {
		base.Model, base.Version = s.Run.Model, s.Version
		base.Concurrency = float64(s.Run.Concurrency)
	}
	name := base.Model
	if name == "" {
		name = filepath.Base(a.Dir)
	}
	switch a.Kind {
	case results.KindMultiRun:
		e := base
		e.Label, e.src, e.agg = name, a.Aggregate, a.Aggregate
		e.Runs = a.Aggregate.NumSuccessful
		return []Entry{e}
	case results.KindSweep:
		var out []Entry
		for i := range a.Sweep.Points {
			pt := &a.Sweep.Points[i]
			e := base
			e.src, e.point = pt, pt.Label()
			e.Label = name + " @ " + e.point
			if c, ok := pt.Param("concurrency"); ok {
				e.Concurrency = c
			}
			out = append(out, e)
		}
		return out
	}
	e := base
	e.Label, e.src, e.recDir = name, a.Summary, a.Dir
	return []Entry{e}
}

// uniqueLabels appends the directory to labels that repeat, then a
// number if that is not enough.
func uniqueLabels(es []Entry) {
	count := map[string]int{}
	for _, e := range es {
		count[e.Label]++
	}
	for i := range es {
		if count[es[i].Label] > 1 {
			es[i].Label += " (" + filepath.Base(es[i].Dir) + ")"
		}
	}
	seen := map[string]int{}
	for i := range es {
		seen[es[i].Label]++
		if n := seen[es[i].Label]; n > 1 {
			es[i].Label = fmt.Sprintf("%s #%d", es[i].Label, n)
		}
	}
}
