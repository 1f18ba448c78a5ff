package results

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Artifact file names, as AIPerf names them.
const (
	SummaryName   = "profile_export_aiperf.json"
	AggregateName = "profile_export_aiperf_aggregate.json"
	SweepName     = "profile_export_aiperf_sweep.json"
	RecordsName   = "profile_export.jsonl"
)

// Kind is what an artifact directory holds.
type Kind int

// Artifact kinds.
const (
	// KindRun is one benchmark: a summary JSON.
	KindRun Kind = iota
	// KindMultiRun is one configuration run several times: a confidence
	// aggregate over profile_runs/run_NNNN/.
	KindMultiRun
	// KindSweep is a parameter sweep: a sweep aggregate over variations.
	KindSweep
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindMultiRun:
		return "multi-run"
	case KindSweep:
		return "sweep"
	}
	return "run"
}

// Artifact is one result found on disk.
type Artifact struct {
	Kind Kind
	// Dir is the artifact directory.
	Dir string
	// Summary is the run's summary (KindRun), or the first run found below
	// a multi-run or sweep directory, for its RunConfig; nil when none.
	Summary *Summary
	// Aggregate is the confidence aggregate of a KindMultiRun.
	Aggregate *Aggregate
	// Sweep is the sweep aggregate of a KindSweep.
	Sweep *Sweep
}

// Label names the artifact for tables: the model and the directory's
// base name.
func (a *Artifact) Label() string {
	base := filepath.Base(a.Dir)
	if a.Summary != nil && a.Summary.Run.Model != "" && a.Summary.Run.Model != base {
		return a.Summary.Run.Model + " (" + base + ")"
	}
	return base
}

// maxFindDepth bounds how deep Find looks below a directory that is not
// an artifact itself (a directory of models, each a directory of runs).
const maxFindDepth = 4

// Find returns the artifacts at path: the file or directory itself when it
// is one (a summary JSON file counts as a run), else every artifact below
// it, in path order, not descending into an artifact once found. It is an
// error when nothing is found.
func Find(path string) ([]Artifact, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		s, err := ReadSummary(path)
		if err != nil {
			return nil, err
		}
		return []Artifact{{Kind: KindRun, Dir: filepath.Dir(path), Summary: s}}, nil
	}
	var out []Artifact
	if err := find(path, 0, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results (%s, aggregate/%s or sweep_aggregate/%s) in it or below it", path, SummaryName, AggregateName, SweepName)
	}
	return out, nil
}

func find(dir string, depth int, out *[]Artifact) error {
	a, ok, err := open(dir)
	if err != nil {
		return err
	}
	if ok {
		*out = append(*out, a)
		return nil
	}
	if depth >= maxFindDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := find(filepath.Join(dir, e.Name()), depth+1, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// open reads dir as an artifact when it is one. A sweep wins over a
// multi-run aggregate (a sweep with repeated runs has both), and both over
// a single summary.
func open(dir string) (Artifact, bool, error) {
	for _, p := range []string{
		filepath.Join(dir, "sweep_aggregate", SweepName),
		filepath.Join(dir, "aggregate", "sweep_aggregate", SweepName),
	} {
		if exists(p) {
			s, err := ReadSweep(p)
			if err != nil {
				return Artifact{}, false, err
			}
			return Artifact{Kind: KindSweep, Dir: dir, Sweep: s, Summary: firstSummaryBelow(dir)}, true, nil
		}
	}
	if p := filepath.Join(dir, "aggregate", AggregateName); exists(p) {
		a, err := ReadAggregate(p)
		if err != nil {
			return Artifact{}, false, err
		}
		return Artifact{Kind: KindMultiRun, Dir: dir, Aggregate: a, Summary: firstSummaryBelow(dir)}, true, nil
	}
	if p := filepath.Join(dir, SummaryName); exists(p) {
		s, err := ReadSummary(p)
		if err != nil {
			return Artifact{}, false, err
		}
		return Artifact{Kind: KindRun, Dir: dir, Summary: s}, true, nil
	}
	return Artifact{}, false, nil
}

// firstSummaryBelow is the first readable run summary under dir in
// lexical path order (filepath.WalkDir's order); nil when there is none.
func firstSummaryBelow(dir string) *Summary {
	var found *Summary
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != SummaryName {
			return nil
		}
		if s, err := ReadSummary(p); err == nil {
			found = s
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// RunSummaries returns the summaries of the runs below dir (a multi-run's
// profile_runs/run_NNNN/), in path order, skipping unreadable ones.
func RunSummaries(dir string) []*Summary {
	paths, _ := filepath.Glob(filepath.Join(dir, "profile_runs", "*", SummaryName))
	slices.Sort(paths)
	var out []*Summary
	for _, p := range paths {
		if s, err := ReadSummary(p); err == nil {
			out = append(out, s)
		}
	}
	return out
}

func exists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
