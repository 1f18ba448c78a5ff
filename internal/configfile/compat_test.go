package configfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestDistributionShapes decodes AIPerf 0.13's five distribution shapes:
// a normal keeps its mean and stddev, the others count by their expected
// value (truncated for lengths) as AIPerf's dataset code reads them.
func TestDistributionShapes(t *testing.T) {
	for _, c := range []struct {
		isl        string
		mean       int
		stddev     float64
		warn, fail string
	}{
		{isl: "512", mean: 512},
		{isl: "{value: 300}", mean: 300},
		{isl: "{type: fixed, value: 300, min: 1}", mean: 300, warn: "min and max have no effect"},
		{isl: "{mean: 256, stddev: 20}", mean: 256, stddev: 20},
		{isl: "{mean: 256}", mean: 256},
		{isl: "{type: NormalDistribution, mean: 100, stddev: 5, max: 200}", mean: 100, stddev: 5, warn: "min and max"},
		{isl: "{mean: 512, median: 400}", mean: 512, warn: "a lognormal distribution is used by its mean (512)"},
		{isl: "{peaks: [{mean: 256, median: 214, weight: 70}, {mean: 2048, median: 1891, weight: 30}]}", mean: 793, warn: "multimodal"},
		{isl: "{peaks: [{mean: 100, stddev: 3}, {distribution: 300}]}", mean: 200, warn: "multimodal distribution is used by its mean (200)"},
		{isl: "{points: [{value: 128, weight: 40}, {value: 512, weight: 35}, {value: 2048, weight: 20}, {value: 8192, weight: 5}]}", mean: 1049, warn: "an empirical distribution is used by its mean (1049)"},
		{isl: "{points: [{value: 10}, {value: 21}]}", mean: 15, warn: "empirical"},
		{isl: "{mean: 3, median: 5}", fail: "median (5) must not exceed its mean (3)"},
		{isl: "{mean: 0, median: 0}", fail: "positive mean and median"},
		{isl: "{peaks: [{mean: 1}]}", fail: "two or more"},
		{isl: "{peaks: [{mean: 1, weight: -1}, 2]}", fail: "peak 0: weight must not be negative"},
		{isl: "{peaks: [{mean: 1, weight: 0}, {value: 2, weight: 0}]}", fail: "must not all be zero"},
		{isl: "{peaks: [{mean: 1}, {median: 2}]}", fail: "peak 1: a lognormal distribution needs mean"},
		{isl: "{points: []}", fail: "needs points"},
		{isl: "{points: [{value: 1, weight: 0}]}", fail: "point 0: weight must be positive"},
		{isl: "{points: [{value: 1, wieght: 2}]}", fail: `unknown key "wieght"`},
		{isl: "{mean: 5, min: 9, max: 3}", fail: "min 9 > max 3"},
		{isl: "{type: gamma, mean: 5}", fail: `unknown distribution type "gamma"`},
		{isl: "{mean: 5, medain: 3}", fail: `did you mean "median"?`},
		{isl: "{avg: 5}", fail: "cannot tell the distribution"},
		{isl: "{mean: 5, median: 3, stddev: 1}", fail: `unknown key "stddev" for a lognormal distribution`},
	} {
		doc := "schemaVersion: \"2.0\"\nbenchmark:\n  model: m\n  dataset: {prompts: {isl: " + c.isl + "}}\n"
		f, err := Parse("t.yaml", []byte(doc), Options{})
		cfg := config.Defaults()
		if err == nil {
			err = f.Apply(&cfg)
		}
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("isl %s: error %v, want %q", c.isl, err, c.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("isl %s: %v", c.isl, err)
			continue
		}
		if got := cfg.Input.InputTokens; got.Mean != c.mean || got.Stddev != c.stddev {
			t.Errorf("isl %s: %+v, want mean %d stddev %g", c.isl, got, c.mean, c.stddev)
		}
		warns := strings.Join(f.Warnings(), "\n")
		if (c.warn == "") != (warns == "") || !strings.Contains(warns, c.warn) {
			t.Errorf("isl %s: warnings %q, want %q", c.isl, warns, c.warn)
		}
	}
}

// TestArtifactsSwitches decodes the summary/records/raw format switches
// of AIPerf 0.13's artifacts section and refuses what cannot be written.
func TestArtifactsSwitches(t *testing.T) {
	for _, c := range []struct {
		artifacts string
		noSummary bool
		level     config.ExportLevel
		fail      string
	}{
		{artifacts: "{summary: [json], records: [jsonl]}", level: config.ExportRecords},
		{artifacts: "{summary: false}", noSummary: true, level: config.ExportRecords},
		{artifacts: "{records: false}", level: config.ExportSummary},
		{artifacts: "{raw: true}", level: config.ExportRaw},
		{artifacts: "{raw: true, records: [jsonl]}", level: config.ExportRaw},
		{artifacts: "{summary: [json, csv]}", fail: `format "csv" is not available`},
		{artifacts: "{summary: []}", fail: "cannot be empty"},
		{artifacts: "{records: yes}", fail: "must be [jsonl] or false"},
		{artifacts: "{raw: true, records: false}", fail: "not available here"},
		{artifacts: "{raw: 1}", fail: "must be true or false"},
	} {
		cfg, err := applyDoc(t, "schemaVersion: \"2.0\"\nbenchmark:\n  model: m\n  artifacts: "+c.artifacts+"\n")
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%s: error %v, want %q", c.artifacts, err, c.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.artifacts, err)
			continue
		}
		if cfg.Artifacts.NoSummaryJSON != c.noSummary || cfg.Output.ExportLevel != c.level {
			t.Errorf("%s: no summary %v level %q, want %v %q", c.artifacts, cfg.Artifacts.NoSummaryJSON, cfg.Output.ExportLevel, c.noSummary, c.level)
		}
	}
}

// TestUserFilesAndRecords decodes artifacts.user_files (formats defaulted
// as in AIPerf, content kept in file order, templates checked against
// variables: and the run's names) and a file dataset's inline records.
func TestUserFilesAndRecords(t *testing.T) {
	cfg, err := applyDoc(t, `schemaVersion: "2.0"
variables: {team: infra}
benchmark:
  model: m
  artifacts:
    user_files:
      - {path: notes.txt, content: "run {{ job_name }} by {{ variables.team }}"}
      - path: meta/info.json
        content: {zeta: 1, alpha: "{{ model }}", list: [1, {b: 2, a: 1}]}
      - {path: m.yaml, format: yaml, content: {k: v}}
  dataset:
    type: file
    format: single_turn
    records:
      - {text: "hello", output_length: 4}
      - {texts: ["a", "b"]}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.UserFile{
		{Path: "notes.txt", Format: "text", Content: json.RawMessage(`"run {{ job_name }} by {{ variables.team }}"`)},
		{Path: "meta/info.json", Format: "json", Content: json.RawMessage(`{"zeta":1,"alpha":"{{ model }}","list":[1,{"b":2,"a":1}]}`)},
		{Path: "m.yaml", Format: "yaml", Content: json.RawMessage(`{"k":"v"}`)},
	}
	if !reflect.DeepEqual(cfg.Artifacts.UserFiles, want) {
		t.Errorf("user files\n%+v\nwant\n%+v", cfg.Artifacts.UserFiles, want)
	}
	if got := cfg.Artifacts.Variables; !reflect.DeepEqual(got, map[string]any{"team": "infra"}) {
		t.Errorf("variables %v", got)
	}
	records := []string{`{"text":"hello","output_length":4}`, `{"texts":["a","b"]}`}
	if len(cfg.Dataset.InlineRecords) != 2 || string(cfg.Dataset.InlineRecords[0]) != records[0] || string(cfg.Dataset.InlineRecords[1]) != records[1] {
		t.Errorf("records %s", cfg.Dataset.InlineRecords)
	}
	if !cfg.Dataset.FromFile() || cfg.Dataset.InputFile != "" {
		t.Errorf("inline records should count as a file dataset: %+v", cfg.Dataset)
	}

	for _, c := range []struct{ doc, fail string }{
		{"artifacts: {user_files: [{path: a.json, format: json, content: text}]}", "needs structured content"},
		{"artifacts: {user_files: [{path: a.txt, format: text, content: {a: 1}}]}", "needs string content"},
		{"artifacts: {user_files: [{path: a.txt, content: x, mode: 644}]}", `unknown key "mode"`},
		{"artifacts: {user_files: [{path: ../a.txt, content: x}]}", "'..' segments"},
		{"artifacts: {user_files: [{path: /etc/a, content: x}]}", "absolute path"},
		{"artifacts: {user_files: [{path: a.txt, content: \"{{ nosuch }}\"}]}", `undefined variable "nosuch"`},
		{"dataset: {type: file, path: x.jsonl, records: [{text: a}]}", "mutually exclusive"},
		{"dataset: {type: synthetic, records: [{text: a}]}", "belongs to a file dataset"},
		{"dataset: {type: file, records: []}", "non-empty list"},
		{"dataset: {type: file, records: [text]}", "record 0 must be a mapping"},
		{"dataset: {type: file}", "needs path (or records)"},
	} {
		cfg, err := applyDoc(t, "schemaVersion: \"2.0\"\nbenchmark:\n  model: m\n  "+c.doc+"\n")
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%s: error %v, want %q", c.doc, err, c.fail)
		}
	}
}

// TestSequenceDistributionKey decodes prompts.sequence_distribution in
// AIPerf 0.13's form, the isl_stddev shorthand and distributions included.
func TestSequenceDistributionKey(t *testing.T) {
	cfg, err := applyDoc(t, `schemaVersion: "2.0"
benchmark:
  model: m
  dataset:
    prompts:
      sequence_distribution:
        - {isl: 128, osl: 64, probability: 40}
        - {isl: {mean: 512, stddev: 32}, osl: 128, osl_stddev: 8, probability: 60}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.SeqDistEntry{{ISL: 128, OSL: 64, Probability: 40}, {ISL: 512, ISLStddev: 32, OSL: 128, OSLStddev: 8, Probability: 60}}
	if !reflect.DeepEqual(cfg.Prompt.SequenceDistribution, want) {
		t.Errorf("got %+v, want %+v", cfg.Prompt.SequenceDistribution, want)
	}
	for _, c := range []struct{ entries, fail string }{
		{"[{isl: 1, osl: 1}]", "needs a numeric probability"},
		{"[{isl: 1, osl: 1, probability: 50, p: 1}]", `unknown key "p"`},
		{"[{isl: 1.5, osl: 1, probability: 100}]", "whole number"},
		{"[{isl: {mean: 4, stddev: 1}, isl_stddev: 2, osl: 1, probability: 100}]", "goes with a plain isl"},
		{"[{isl: 10, osl: 1, probability: 30}]", "100"},
		{"[]", "non-empty list"},
	} {
		cfg, err := applyDoc(t, "schemaVersion: \"2.0\"\nbenchmark:\n  model: m\n  dataset: {prompts: {sequence_distribution: "+c.entries+"}}\n")
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%s: error %v, want %q", c.entries, err, c.fail)
		}
	}
}

// writeTemp writes a file under a test directory and returns its path.
func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
