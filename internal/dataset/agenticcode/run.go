// Package agenticcode synthesizes agentic-coding session traces as AIPerf
// 0.13's `aiperf synthesize agentic-code` does: multi-turn sessions whose
// context grows turn by turn over a layered prefix model (a global L1
// prefix, a group's L1.5, a session's L2, the history's L3), with
// lognormal new-token, output and delay draws, context-dependent resets
// and restart splits, all from numpy's default_rng(seed) in AIPerf's
// order, so a seed gives AIPerf's dataset.
//
// Synthesize writes a run directory as AIPerf does: dataset.jsonl (a
// mooncake_trace), manifest.json (the seed and the whole configuration,
// which --config takes back), quality.json (targets against what was
// drawn), cache_structure.json and comparison.txt, plus three
// self-contained HTML views: report.html (the distributions),
// cache_explorer.html (each turn's blocks by layer) and simulation.html
// (the trace replayed through a KV cache).
package agenticcode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset/loader"
)

// Options are `aiperf synthesize agentic-code`'s arguments.
type Options struct {
	Sessions int
	// Output is the parent of the run directory.
	Output string
	// Config is a bundled configuration name or a JSON file (a config or
	// a manifest.json); "" uses Defaults.
	Config string
	Seed   uint64
	// MaxISL overrides max_prompt_tokens, MaxOSL the output maximum.
	MaxISL, MaxOSL *int
	// Now names the run directory (UTC); zero is time.Now.
	Now time.Time
	// Progress, when set, gets AIPerf's "Generating N sessions" line once
	// the configuration is read.
	Progress io.Writer
}

// Result says what Synthesize wrote.
type Result struct {
	Dir      string
	Sessions []Session
	Turns    int
	// Rows is how many rows dataset.jsonl has, as validated.
	Rows int
	// Ignored lists configuration keys that were not interpreted.
	Ignored []string
	// Comparison is comparison.txt's text.
	Comparison string
}

// ConfigError is input that cannot be synthesized (the configuration,
// the session count, --max-isl or --max-osl), as opposed to a failure to
// write the run directory.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Files are the run directory's files, in the order Synthesize writes
// them.
var Files = []string{"dataset.jsonl", "manifest.json", "quality.json", "cache_structure.json", "cache_explorer.html",
	"report.html", "comparison.txt", "simulation.html"}

// Synthesize draws the sessions and writes the run directory
// <output>/<config>_<n>s_seed<seed>_<UTC time>.
func Synthesize(o Options) (*Result, error) {
	if o.Sessions < 1 {
		return nil, &ConfigError{fmt.Errorf("--num-sessions must be at least 1, got %d", o.Sessions)}
	}
	cfg, name := Defaults(), "default"
	var ignored []string
	if o.Config != "" {
		var err error
		if cfg, name, ignored, err = Load(o.Config); err != nil {
			return nil, &ConfigError{err}
		}
	}
	if err := cfg.Override(o.MaxISL, o.MaxOSL); err != nil {
		return nil, &ConfigError{err}
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "Generating %d sessions (seed=%d)...\n", o.Sessions, o.Seed)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	dir := filepath.Join(o.Output, fmt.Sprintf("%s_%ds_seed%d_%s", name, o.Sessions, o.Seed, now.UTC().Format("20060102-150405")))
	sessions, err := NewSynthesizer(cfg, o.Seed).Sessions(o.Sessions)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &Result{Dir: dir, Sessions: sessions, Ignored: ignored}
	for _, s := range sessions {
		r.Turns += len(s.Turns)
	}
	jsonl := filepath.Join(dir, "dataset.jsonl")
	rowIDs, err := WriteDataset(jsonl, sessions, cfg.BlockSize)
	if err != nil {
		return nil, err
	}
	// As AIPerf, the run checks its own output as a mooncake trace.
	if r.Rows, err = loader.ValidateMooncakeTrace(jsonl); err != nil {
		return nil, fmt.Errorf("the synthesized dataset is not a valid mooncake trace: %w", err)
	}
	quality := Quality(sessions, &cfg)
	if err := writeDoc(dir, "manifest.json", Manifest(&cfg, o.Seed, len(sessions), name)); err != nil {
		return nil, err
	}
	if err := writeDoc(dir, "quality.json", quality); err != nil {
		return nil, err
	}
	cache := CacheStructure(sessions, &cfg)
	if err := writeDoc(dir, "cache_structure.json", cache); err != nil {
		return nil, err
	}
	if err := writeExplorer(dir, cache); err != nil {
		return nil, fmt.Errorf("writing cache_explorer.html: %w", err)
	}
	m := metricsOf(sessions, cfg.BlockSize)
	if err := writeReport(dir, sessions, &cfg, m); err != nil {
		return nil, fmt.Errorf("writing report.html: %w", err)
	}
	minutes := statsOf(m.SessionDurationMin, -1)
	r.Comparison = Comparison(quality, &minutes)
	if err := os.WriteFile(filepath.Join(dir, "comparison.txt"), []byte(r.Comparison), 0o644); err != nil {
		return nil, err
	}
	if err := writeSimulation(dir, sessions, rowIDs, &cfg); err != nil {
		return nil, fmt.Errorf("writing simulation.html: %w", err)
	}
	return r, nil
}
