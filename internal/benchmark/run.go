package benchmark

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/internal/accuracy"
	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// IO is the process state a run may touch.
type IO struct {
	Stdout, Stderr io.Writer
	IsTTY          bool   // Stdout is a terminal
	Width          int    // terminal width for tables; 0 = default
	CLICommand     string // the command line, secrets redacted
	Version        string // aiperf_version in artifacts
	// Abort is closed by a second interrupt: the requests in flight are
	// cancelled at once instead of drained; artifacts are still written.
	// nil never closes.
	Abort <-chan struct{}
	// Trial (0-based) and RunLabel ("run_0002") identify a run of a
	// multi-run experiment in run_info; zero for a single run.
	Trial    int
	RunLabel string
	// Sweep places the run in a parameter sweep (run_info's sweep_id and
	// variation fields); nil outside a sweep.
	Sweep *export.SweepRun
	// Stdin is the terminal the dashboard reads keys from; nil = os.Stdin.
	Stdin io.Reader
	// Observers watch the run live besides the terminal view (an HTTP
	// progress API, live metric exporters): each gets every live.Snapshot,
	// the Final one included; see package live.
	Observers []live.Observer
	// Records see every finished request (live.RecordObserver), for
	// integrations exporting per-request values (OTel, MLflow live).
	Records []live.RecordObserver
	// BenchmarkID is the run's benchmark_id; "" = a fresh random one. The
	// integrations set it so that what they send before the run ends
	// carries the ID the artifacts will have.
	BenchmarkID string
}

// Run executes one benchmark and writes its artifacts. Cancelling ctx (the
// first Ctrl-C) stops issuing new requests; requests in flight drain within
// the grace period and every artifact is still written, marked
// was_cancelled.
//
// The returned error carries the exit code as a *config.ExitError: usage
// problems found while planning (2), a run in which every request failed,
// an endpoint that never became ready (--wait-for-model-timeout) or
// artifacts that could not be written (1), a run aborted by
// --failed-request-threshold (3). Artifacts are written whenever a request
// was sent.
func Run(ctx context.Context, cfg *config.Config, rio IO) error {
	plan, err := NewPlan(cfg, builtin.New())
	if err != nil {
		return err
	}
	if err := PrepareArtifactDir(plan.Paths.Dir); err != nil {
		return err
	}
	board := &live.Board{}
	console := &consoleGate{w: rio.Stderr}
	log, closeLog, err := openLog(plan.Paths.Log, cfg, console, board)
	if err != nil {
		return err
	}
	defer closeLog()
	log.Info("aiperf-go starting", "version", rio.Version, "command", rio.CLICommand, "artifacts", plan.Paths.Dir)
	for _, n := range compatNotes(cfg) {
		log.Info(n)
	}

	if err := waitForModel(ctx, plan, rio.Stderr, log); err != nil {
		log.Error("endpoint not ready", "error", err, fileOnly)
		return err
	}
	started := time.Now()
	if err := plan.BuildDataset(); err != nil {
		log.Error("dataset", "error", err, fileOnly)
		return err
	}
	log.Info("dataset ready", "conversations", plan.Dataset.Len(), "tokenizer", plan.Tokenizer.Name(),
		"tokenizer_source", plan.TokenizerSource, "seed", plan.Seed, "elapsed", time.Since(started))
	if err := plan.planSessions(); err != nil {
		log.Error("sessions", "error", err, fileOnly)
		return err
	}
	if flags := plan.replayWarnings(); len(flags) > 0 {
		log.Warn("only the baseten_trace loader honours these trace-replay flags; they have no effect on this dataset", "flags", flags)
	}
	if plan.ChatTemplateErr != nil {
		log.Warn("--apply-chat-template has no effect: input tokens are counted on the bare prompt text", "reason", plan.ChatTemplateErr)
	}
	if plan.skipsInputsJSON() {
		log.Info("inputs.json not written: the requests of a trace or verbatim dataset are its source replayed (as AIPerf 0.13 skips it)", "type", plan.DatasetType)
	} else if err := export.WriteInputs(plan.Paths.Inputs, sessions(plan)); err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("writing inputs.json: %w", err)}
	}

	if hooks := controlHooks(plan); hooks != nil && cfg.Telemetry.ResetKVCache != nil {
		if err := hooks.ResetKVCache(ctx); err != nil {
			log.Error("reset_kv_cache failed before benchmark start", "error", err)
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("reset_kv_cache failed before benchmark start: %w", err)}
		}
		log.Info("KV cache reset", "urls", cfg.Endpoint.URLs)
	}
	res, err := execute(ctx, plan, rio, log, board, console)
	if err != nil {
		log.Error("run failed", "error", err, fileOnly)
		return err
	}
	if err := writeArtifacts(plan, res, rio); err != nil {
		log.Error("writing artifacts failed", "error", err, fileOnly)
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	return exitStatus(res)
}

// result is a finished run.
type result struct {
	Summary     metrics.Summary
	Clock       *clock.Clock
	BenchmarkID string
	Stopped     bool   // interrupted before the stop condition
	Aborted     string // why --failed-request-threshold (or an unreachable server) stopped the run; empty when it did not
	AbortCode   int    // the exit code that goes with Aborted
	Profiling   phaseResult
	WriteErr    error
	Health      *ClientHealth // nil when the profiling phase did not run
	Timeslices  []export.Timeslice
	Warmup      *metrics.Summary  // the warmup phase's metrics (warmup_metrics); nil without one
	Accuracy    *accuracy.Summary // --accuracy-benchmark's tally; nil when off
	// Phases are the phases that ran, in order, each with its own summary
	// when the run had more than one (phase_manifest.json).
	Phases    []phaseOutcome
	Telemetry *telemetryResults // nil when no telemetry was collected
	// NetworkNote says which network round trip the network_adjusted_*
	// metrics subtract; "" without calibration.
	NetworkNote string
}

// execute runs the phases with the processing pipeline behind them, and
// publishes their live state to the terminal view and rio.Observers.
// Telemetry collectors post their panels to board.
func execute(ctx context.Context, plan *Plan, rio IO, log *slog.Logger, board *live.Board, console *consoleGate) (*result, error) {
	clk := clock.New()
	sampler, err := dataset.NewSampler(plan.Sampling, plan.Dataset.Len(), plan.Seed)
	if err != nil {
		return nil, err
	}
	lineOpts := export.LineOptions{Clock: clk, WarmupFirst: plan.Warmup != nil && len(plan.Phases) == 2, SensitiveHeader: config.IsSensitiveHeader}
	var records *export.RecordWriter
	if plan.Paths.WritesRecords() {
		if records, err = export.NewRecordWriter(plan.Paths.JSONL, lineOpts); err != nil {
			return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
		}
	}
	var rawOut *export.RawWriter
	if plan.Paths.WritesRaw() {
		if rawOut, err = export.NewRawWriter(plan.Paths.RawJSONL, lineOpts); err != nil {
			return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
		}
	}
	stop, requests, guard := newFailureGuard(ctx, plan, log)
	defer guard.release()
	var counts [2]counters
	pl, err := startPipeline(plan, clk, records, rawOut, log, &counts, guard)
	if err != nil {
		return nil, err
	}
	pl.recObs = rio.Records
	if pl.accuracy, err = newAccuracyRun(plan, log); err != nil {
		return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	if plan.Config.Artifacts.ExportOutputsJSON { // before any record flows
		if pl.outputs, err = export.NewOutputsWriter(plan.Paths.Outputs, lineOpts); err != nil {
			return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
		}
	}
	raiseFileLimit(plan, false, log) // issue 19: many streams
	defer tuneForStreams(plan, log)()
	client := newTransportClient(plan)
	defer client.Close()
	preOpened := preconnect(ctx, plan, client, log) // issue 19: --pre-connect

	observers := append([]live.Observer{newView(plan, rio, console)}, rio.Observers...)
	if sl := newStatsLog(log, plan.Config.StatsInterval(rio.IsTTY)); sl != nil {
		observers = append(observers, sl)
	}
	if ow := newOverloadWatch(plan, log); ow != nil { // issue 19: overload said while running
		observers = append(observers, ow)
	}
	progress := newPublisher(observers, clk, &counts, pl.live, board)
	// Telemetry starts before the warmup: its first scrapes are the
	// baseline every counter of the profiling window is measured from.
	tel, err := startTelemetry(ctx, plan, clk, log, board)
	if err != nil {
		return nil, err
	}
	probe, err := startNetProbe(ctx, plan, clk, log) // --network-latency-automatic
	if err != nil {
		return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	hooks := controlHooks(plan)
	runner := &phaseRunner{
		plan: plan, clk: clk, client: client, sampler: sampler, pl: pl, log: log,
		interruptGrace: grace(plan.Config.GracePeriod()),
		abort:          rio.Abort,
		onStart: func(spec *PhaseSpec, start time.Duration) {
			tel.phaseStarted(spec, clk.WallNanos(start))
			progress.start(spec, start)
		},
		requests: requests,
	}

	if plan.Config.Cluster.Workers > 0 { // issue 20: load workers
		if runner.cluster, err = startCluster(ctx, plan, clk, rio.Version, log); err != nil {
			return nil, err
		}
		defer runner.cluster.close()
	}
	res := &result{Clock: clk, BenchmarkID: cmp.Or(rio.BenchmarkID, newBenchmarkID())}
	runner.runID = res.BenchmarkID
	runner.bust = plan.cacheBust(res.BenchmarkID)
	if err := writeRunConfig(plan, rio, res.BenchmarkID); err != nil {
		log.Warn("run_config.json not written", "error", err) // the run's own artifacts still are
	}
	var phaseErr error
	var warmRan bool
	var warmStart time.Duration
	var cpuMon *cpuMonitor
	var warmup *phaseResult
	firstProfiling, profiling := true, false
	for _, spec := range plan.Phases {
		if phaseErr != nil || ctx.Err() != nil || res.Stopped {
			break
		}
		if spec.Phase == record.Profiling && firstProfiling && hooks != nil && hooks.Profiling() {
			if err := hooks.StartProfiler(ctx); err != nil {
				phaseErr = &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("server_profiler start failed: %w", err)}
				break
			}
			profiling = true
		}
		seed := plan.Seed + uint64(max(0, spec.ProfilingIndex))
		if spec.Phase == record.Warmup {
			seed = plan.Seed ^ 0x5741524d5550 // "WARMUP"
		}
		if spec.Phase == record.Profiling && cpuMon == nil {
			cpuMon = startCPUMonitor()
		}
		pr, err := runner.run(stop, spec, seed)
		phaseErr = err
		res.Stopped = pr.Stopped
		if pr.Aborted != "" { // issue 20: every load worker lost
			res.Stopped, res.Aborted, res.AbortCode = true, pr.Aborted, config.ExitFailure
		}
		res.Phases = append(res.Phases, phaseOutcome{Spec: spec, Result: pr, Ran: err == nil})
		if spec.Phase == record.Warmup {
			tel.warmupDone(ctx) // AIPerf's end-of-warmup scrape
		}
		switch {
		case spec.Phase == record.Warmup && !warmRan:
			warmRan, warmStart = err == nil, pr.Stats.Start
			warmup = &pr
		case spec.Phase == record.Profiling && firstProfiling:
			res.Profiling, firstProfiling = pr, false
		case spec.Phase == record.Profiling:
			// Later profiling phases extend the profiling window.
			res.Profiling.End, res.Profiling.Stats.End = pr.End, pr.Stats.End
			res.Profiling.Stats.Issued += pr.Stats.Issued
			res.Profiling.Stats.Backlogged += pr.Stats.Backlogged
			res.Profiling.Stats.Waited += pr.Stats.Waited
			res.Profiling.Stats.Unsent += pr.Stats.Unsent
			res.Profiling.Cancelled += pr.Cancelled
			res.Profiling.Stopped = res.Profiling.Stopped || pr.Stopped
		}
	}
	if runner.cluster != nil {
		if err := runner.cluster.writeReport(); err != nil {
			log.Error("cluster.json could not be written", "error", err)
		}
	}
	if profiling {
		if err := hooks.StopProfiler(context.WithoutCancel(ctx)); err != nil {
			log.Warn("server_profiler stop failed", "error", err)
		}
	}
	if cpuMon != nil {
		cpuMon.stop()
	}
	res.Stopped = res.Stopped || ctx.Err() != nil
	pl.wait()
	rtt, netNote := networkRTT(ctx, plan, probe)
	pl.acc.SetNetworkRTT(rtt)
	res.NetworkNote = netNote
	if err := tel.finish(ctx); err != nil {
		// As in AIPerf, a telemetry file that could not be written does
		// not fail the benchmark.
		log.Error("telemetry export failed", "error", err)
	}
	if reason := guard.Reason(); reason != "" {
		res.Stopped, res.Aborted, res.AbortCode = true, reason, guard.ExitCode()
	}
	progress.stop()
	if records != nil {
		if err := records.Close(); err != nil && res.WriteErr == nil {
			res.WriteErr = err
		}
	}
	if rawOut != nil {
		if err := rawOut.Close(); err != nil && res.WriteErr == nil {
			res.WriteErr = err
		}
	}
	if pl.outputs != nil {
		if err := pl.outputs.Finish(); err != nil && res.WriteErr == nil {
			res.WriteErr = fmt.Errorf("outputs.json: %w", err)
		}
	}
	if pl.writeErr != nil && res.WriteErr == nil {
		res.WriteErr = pl.writeErr
	}
	if pl.accuracy != nil {
		sum, err := pl.accuracy.finish()
		res.Accuracy = &sum
		if err != nil && res.WriteErr == nil {
			res.WriteErr = fmt.Errorf("accuracy export: %w", err)
		}
	}
	if phaseErr != nil {
		return nil, phaseErr
	}
	if cpuMon != nil {
		// The profiling phase ran: throughputs divide by its window, from
		// the scheduler's start (what every due time is relative to).
		pl.acc.SetPhaseStart(res.Profiling.Stats.Start)
	}
	res.Summary = pl.acc.Summarize()
	pl.summarizePhases(res)
	if pl.warm != nil && warmRan {
		pl.warm.SetPhaseStart(warmStart)
		w := pl.warm.Summarize()
		res.Warmup = &w
	}
	if cpuMon != nil {
		res.Telemetry = tel.results(&res.Summary, &res.Profiling, warmup, clk, plan)
	}
	res.Timeslices = pl.slices.slices(clk.Wall)
	if cpuMon != nil {
		h := clientHealth(cpuMon, &res.Summary, &pl.span, &plan.Profiling)
		h.ConnectionRetries = pl.retries
		h.noteConns(client.ConnHealth())
		h.noteBacklog(res.Profiling.Stats, plan.Profiling.Concurrency == 0 && runner.cluster == nil && capsInFlight(plan))
		pl.conns.fill(&h, preOpened)
		logHealth(h, log)
		res.Health = &h
	}
	return res, nil
}

// exitStatus decides the run's outcome from its results.
func exitStatus(res *result) error {
	valid, errs := count(&res.Summary, "request_count"), count(&res.Summary, "error_request_count")
	switch {
	case res.WriteErr != nil:
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("per-request records: %w", res.WriteErr)}
	case res.Aborted != "":
		return &config.ExitError{Code: res.AbortCode, Err: errors.New(res.Aborted)}
	case res.Stopped:
		return &config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted: results cover the requests finished before the stop")}
	case valid == 0 && errs > 0:
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("all %d requests failed; see the error summary above and the log", errs)}
	case valid == 0:
		return &config.ExitError{Code: config.ExitFailure, Err: errors.New("no request completed")}
	}
	return nil
}

func count(s *metrics.Summary, tag string) int {
	if r, ok := s.Get(tag); ok {
		return int(r.Value)
	}
	return 0
}

// sessions lists the request bodies per conversation for inputs.json.
func sessions(p *Plan) []export.Session {
	out := make([]export.Session, len(p.Dataset.Conversations))
	for i, c := range p.Dataset.Conversations {
		out[i] = export.Session{ID: c.ID, Payloads: p.Payloads[i]}
	}
	return out
}

func newBenchmarkID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
