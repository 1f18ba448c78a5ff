package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/internal/accuracy"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Accuracy artifacts, AIPerf's names.
const (
	accuracyCSV   = "accuracy_results.csv"
	accuracyJSONL = "accuracy_export.jsonl"
)

// accuracyPlan is accuracy mode's part of the plan: the problems by
// conversation and the grader.
type accuracyPlan struct {
	benchmark, graderName string
	grader                accuracy.Grader
	byConv                map[string]*accuracy.Problem
	index                 map[string]int // conversation -> session_num
	verbose               bool
}

// buildAccuracyDataset loads the benchmark's problems and makes each a
// single-turn conversation carrying its chat messages, generation size
// and stop sequences. Unless --request-count or --benchmark-duration says
// otherwise, the run sends each problem once, in order.
func (p *Plan) buildAccuracyDataset() error {
	a := &p.Config.Integrations.Accuracy
	meta, _ := accuracy.Lookup(a.Benchmark)
	problems, err := accuracy.Load(context.Background(), accuracy.Options{
		Benchmark: a.Benchmark, Tasks: a.Tasks, Shots: a.NShots, CoT: a.EnableCoT, Getenv: p.Env.Getenv,
	})
	if err != nil {
		return usageError(err)
	}
	graderName := a.Grader
	if graderName == "" {
		graderName = meta.DefaultGrader
	}
	grader, err := accuracy.NewGrader(graderName)
	if err != nil {
		return usageError(fmt.Errorf("--accuracy-grader: %w", err))
	}
	system := meta.SystemPrompt
	if a.SystemPrompt != nil {
		system = *a.SystemPrompt
	}
	ids := loader.NewSessionIDs(p.Seed, p.SeedSet)
	ap := &accuracyPlan{benchmark: a.Benchmark, graderName: graderName, grader: grader, verbose: a.Verbose,
		byConv: make(map[string]*accuracy.Problem, len(problems)), index: map[string]int{}}
	ds := &dataset.Dataset{Conversations: make([]dataset.Conversation, len(problems))}
	for i := range problems {
		pr := &problems[i]
		msgs := pr.Messages
		if system != "" {
			msgs = append([]accuracy.Message{{Role: "system", Content: system}}, msgs...)
		}
		raw, err := json.Marshal(msgs)
		if err != nil {
			return err
		}
		text := pr.Prompt
		if system != "" {
			text = system + "\n\n" + text
		}
		turn := dataset.Turn{Role: "user", Texts: []string{text}, Messages: raw, MaxTokens: pr.MaxTokens, InputTokens: -1}
		if p.Tokenizer != nil {
			turn.InputTokens = p.Tokenizer.Count(text)
		}
		if len(pr.Stop) > 0 {
			stop, _ := json.Marshal(pr.Stop)
			turn.Extra = []dataset.Field{{Key: "stop", Value: stop}}
		}
		id := ids.Next()
		ds.Conversations[i] = dataset.Conversation{ID: id, Turns: []dataset.Turn{turn}}
		ap.byConv[id] = pr
		ap.index[id] = i
	}
	p.Dataset, p.Sampling, p.DatasetType, p.Accuracy = ds, "sequential", "accuracy", ap
	if p.Config.Load.RequestCount == nil && p.Config.Load.BenchmarkDuration == nil {
		p.Profiling.Count = len(problems)
	}
	return p.formatPayloads()
}

// accuracyRun grades a run's profiling answers: the consumer goroutine
// is its only writer.
type accuracyRun struct {
	plan  *accuracyPlan
	tally *accuracy.Tally
	out   *accuracy.JSONLWriter
	log   *slog.Logger
	err   error
}

func newAccuracyRun(p *Plan, log *slog.Logger) (*accuracyRun, error) {
	if p.Accuracy == nil {
		return nil, nil
	}
	w, err := accuracy.NewJSONLWriter(accuracyFile(p, accuracyJSONL, "_accuracy.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("accuracy export: %w", err)
	}
	return &accuracyRun{plan: p.Accuracy, tally: accuracy.NewTally(p.Accuracy.benchmark, p.Accuracy.graderName), out: w, log: log}, nil
}

// grade scores one profiling record; nil-safe.
func (a *accuracyRun) grade(p *metrics.Processed) {
	if a == nil || p.Record.Phase != record.Profiling {
		return
	}
	rec := p.Record
	pr, ok := a.plan.byConv[rec.ConversationID]
	if !ok {
		return
	}
	g := a.plan.grader.Grade(p.OutputText, pr.Truth)
	if rec.Error != nil {
		g = accuracy.Grade{Unparsed: true, Expected: strings.TrimSpace(pr.Truth), Reason: "request failed: " + rec.Error.Message}
	}
	a.tally.Add(pr.Task, g)
	conf := 0.0
	if g.Correct {
		conf = 1
	}
	line := &accuracy.Graded{
		SessionNum: a.plan.index[rec.ConversationID], ConversationID: rec.ConversationID, XRequestID: rec.XRequestID,
		WorkerID: rec.WorkerID, BenchmarkPhase: rec.Phase.String(), TimestampNs: p.EndNs, Task: pr.Task,
		GraderName: a.plan.graderName, Passed: g.Correct, Unparsed: g.Unparsed, Confidence: conf,
		Expected: g.Expected, Actual: g.Extracted, Explanation: g.Reason, ModelOutput: p.OutputText,
	}
	if err := a.out.Write(line); err != nil && a.err == nil {
		a.err = err
	}
	if a.plan.verbose {
		preview := strings.ReplaceAll(strings.TrimSpace(p.OutputText), "\n", `\n`)
		if len(preview) > 200 {
			preview = preview[:200]
		}
		a.log.Info("[accuracy]", "session", line.SessionNum, "task", pr.Task, "correct", g.Correct, "unparsed", g.Unparsed,
			"reason", g.Reason, "response_preview", preview)
	}
}

// finish closes the JSONL and returns the summary.
func (a *accuracyRun) finish() (accuracy.Summary, error) {
	err := errors.Join(a.err, a.out.Close())
	return a.tally.Summary(), err
}

// writeAccuracy writes accuracy_results.csv, adds the accuracy.* values
// and the summary to the summary JSON, and the table to the console.
func writeAccuracy(p *Plan, s *accuracy.Summary, info *export.RunInfo, opts *export.ConsoleOptions) error {
	if s == nil {
		return nil
	}
	path := accuracyFile(p, accuracyCSV, "_accuracy.csv")
	err := s.WriteCSV(path)
	if err == nil {
		opts.Exports = append(opts.Exports, export.Export{Label: "Accuracy Results", Path: path})
	}
	aj := &export.AccuracyJSON{Summary: s}
	for _, m := range s.Metrics() {
		aj.Metrics = append(aj.Metrics, export.AccuracyMetric{Tag: m.Tag, Avg: m.Value, Count: m.Count, Sum: m.Sum})
	}
	info.Accuracy = aj
	var b strings.Builder
	s.WriteTable(&b)
	opts.Footer += b.String()
	return err
}

// accuracyFile is an accuracy artifact's path: its default name, or
// <prefix><suffix> with --profile-export-prefix, as AIPerf names them.
func accuracyFile(p *Plan, name, suffix string) string {
	if pre := p.Config.Output.ProfileExportPrefix; pre != "" {
		name = export.PrefixBase(pre) + suffix
	}
	return filepath.Join(p.Paths.Dir, name)
}
