package benchmark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/export"
)

// RunConfigFile is the file AIPerf 0.13's orchestrator writes into the
// directory of every run of a multi-run or sweep (its BenchmarkRun): the
// run's identity, its place in the sweep and its configuration.
const RunConfigFile = "run_config.json"

// runConfigDoc is AIPerf's BenchmarkRun as JSON: cfg is the same
// BenchmarkConfig-shaped section as the summary's input_config (AIPerf's
// loader validates it); variation and sweep_id only within a sweep.
type runConfigDoc struct {
	BenchmarkID string          `json:"benchmark_id"`
	SweepID     string          `json:"sweep_id,omitzero"`
	Cfg         *jsonObject     `json:"cfg"`
	Variation   *runVariation   `json:"variation,omitzero"`
	Trial       int             `json:"trial"`
	ArtifactDir string          `json:"artifact_dir"`
	Label       string          `json:"label"`
	CLICommand  string          `json:"cli_command,omitzero"`
	RandomSeed  *uint64         `json:"random_seed,omitzero"`
	Variables   json.RawMessage `json:"variables"`
}

// runVariation is AIPerf's SweepVariation: values maps each varied path
// to its value, in sweep order.
type runVariation struct {
	Index  int             `json:"index"`
	Label  string          `json:"label"`
	Values json.RawMessage `json:"values"`
}

// writeRunConfig writes run_config.json for a run of an experiment (rio
// names its trial label); a single run has none, as in AIPerf. It is
// written when the run starts, so the directory of a run that never
// finishes still says what it was.
func writeRunConfig(p *Plan, rio IO, benchmarkID string) error {
	if rio.RunLabel == "" {
		return nil
	}
	doc := runConfigDoc{
		BenchmarkID: benchmarkID, Cfg: inputConfig(p, p.Config.UIType(rio.IsTTY)), Trial: rio.Trial,
		ArtifactDir: p.Paths.Dir, Label: rio.RunLabel, CLICommand: rio.CLICommand, Variables: json.RawMessage("{}"),
	}
	if p.SeedSet {
		seed := p.Seed
		doc.RandomSeed = &seed
	}
	if v := p.Config.Artifacts.Variables; len(v) > 0 {
		if b, err := json.Marshal(v); err == nil {
			doc.Variables = b
		}
	}
	if s := rio.Sweep; s != nil {
		doc.SweepID = s.ID
		var b bytes.Buffer
		b.WriteByte('{')
		for i, v := range s.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(v.Path)
			b.Write(k)
			b.WriteByte(':')
			b.Write(v.Value)
		}
		b.WriteByte('}')
		doc.Variation = &runVariation{Index: s.Index, Label: s.Label, Values: b.Bytes()}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", RunConfigFile, err)
	}
	return export.WriteFile(filepath.Join(p.Paths.Dir, RunConfigFile), append(data, '\n'))
}
