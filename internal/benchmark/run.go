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
	"net/http"
	"time"

	"github.com/aiperf-go/aiperf/internal/accuracy"
	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/cancellation"
	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/cluster"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/doctor"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/readiness"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/validity"
	"github.com/aiperf-go/aiperf/internal/worker"
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
	// SchedStat reads how long the process's threads ran and waited for a
	// CPU (client_health's cpu_wait_per_wake_us, the client_cpu_wait check); nil
	// reads this process's from the kernel.
	SchedStat func() (clienthealth.SchedStat, bool)
	// Env is the environment the run reads (AIPERF_* tunables, proxies,
	// credentials, the Hugging Face hub), as the command line read it once
	// at start; nil: no variable set. The benchmark never reads the
	// process environment itself.
	Env environ.Snapshot
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
	plan, err := NewPlan(cfg, builtin.New(), rio.Env)
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
	// aiperf doctor's cheap checks: silent when all is fine.
	for _, r := range doctor.Preflight(doctor.Cheap(cfg, doctor.Local())) {
		log.Warn(r.Reason, "check", r.Check, "fix", r.Fix)
	}

	if err := waitForModel(ctx, plan, rio.Stderr, log); err != nil {
		log.Error("endpoint not ready", "error", err, fileOnly)
		return err
	}
	inputsAfter, err := prepareDataset(plan, log)
	if err != nil {
		return err
	}

	if hooks := controlHooks(plan); hooks != nil && cfg.Telemetry.ResetKVCache != nil {
		if err := hooks.ResetKVCache(ctx); err != nil {
			log.Error("reset_kv_cache failed before benchmark start", "error", err)
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("reset_kv_cache failed before benchmark start: %w", err)}
		}
		log.Info("KV cache reset", "urls", cfg.Endpoint.URLs)
	}
	res, err := execute(ctx, plan, rio, log, board, console)
	var inputsErr error
	if inputsAfter {
		// Written whether or not the run failed, as it would have been
		// before a run that builds its prompts ahead; a failure here
		// still leaves the results to write and print.
		if inputsErr = writeInputs(plan); inputsErr != nil {
			log.Error("writing inputs.json failed", "error", inputsErr, fileOnly)
		}
	}
	if err != nil {
		log.Error("run failed", "error", err, fileOnly)
		return err
	}
	if err := writeArtifacts(plan, res, rio); err != nil {
		log.Error("writing artifacts failed", "error", err, fileOnly)
		return &config.ExitError{Code: config.ExitFailure, Err: errors.Join(err, inputsErr)}
	}
	if inputsErr != nil {
		return inputsErr
	}
	return exitStatus(res)
}

// prepareDataset builds the dataset and plans its sessions, logging what
// the dataset's options will not do, and writes inputs.json now unless the
// dataset builds its prompts as they are sent (then inputsAfter: it is
// written after the run, since writing it now would build every prompt
// before the first request) or the dataset skips it.
func prepareDataset(plan *Plan, log *slog.Logger) (inputsAfter bool, err error) {
	started := time.Now()
	if err := plan.BuildDataset(); err != nil {
		log.Error("dataset", "error", err, fileOnly)
		return false, err
	}
	log.Info("dataset ready", "conversations", plan.Dataset.Len(), "tokenizer", plan.Tokenizer.Name(),
		"tokenizer_source", plan.TokenizerSource, "seed", plan.Seed, "elapsed", time.Since(started))
	if err := plan.planSessions(); err != nil {
		log.Error("sessions", "error", err, fileOnly)
		return false, err
	}
	if flags := plan.replayWarnings(); len(flags) > 0 {
		log.Warn("only the baseten_trace loader honours these trace-replay flags; they have no effect on this dataset", "flags", flags)
	}
	if plan.ChatTemplateErr != nil {
		log.Warn("--apply-chat-template has no effect: input tokens are counted on the bare prompt text", "reason", plan.ChatTemplateErr)
	}
	inputsAfter = plan.Dataset.Deferred()
	if plan.skipsInputsJSON() {
		log.Info("inputs.json not written: the requests of a trace or verbatim dataset are its source replayed (as AIPerf 0.13 skips it)", "type", plan.DatasetType)
		inputsAfter = false
	} else if !inputsAfter {
		if err := writeInputs(plan); err != nil {
			return false, err
		}
	}
	return inputsAfter, nil
}

// waitForModel runs the readiness probes the configuration asks for
// (package readiness); nil when none is configured.
func waitForModel(ctx context.Context, p *Plan, stderr io.Writer, log *slog.Logger) error {
	e := &p.Config.Endpoint
	if !(e.WaitForModelTimeout > 0) {
		return nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // as the benchmark's transport: never through a proxy
	t.DisableCompression = true
	hc, err := p.signedClient(&http.Client{Transport: t})
	if err != nil {
		return err
	}
	pr := newProber(p, hc, log)
	defer t.CloseIdleConnections()
	fmt.Fprintf(stderr, "Waiting up to %gs for the endpoint to be ready (--wait-for-model-mode %s)\n",
		e.WaitForModelTimeout, pr.Mode())
	return pr.Wait(ctx)
}

// newProber is the readiness prober of the run's URLs, models and headers.
func newProber(p *Plan, client *http.Client, log *slog.Logger) *readiness.Prober {
	e := &p.Config.Endpoint
	o := readiness.Options{
		Targets: p.URLs, Models: p.Models, Mode: e.WaitForModelMode, Kind: e.Type,
		Timeout: clock.Seconds(e.WaitForModelTimeout), Interval: clock.Seconds(e.WaitForModelInterval),
		Header: p.Header, Client: client, Log: log, Signed: p.Config.Signs(),
	}
	for _, u := range e.URLs {
		o.Bases = append(o.Bases, config.NormalizeURL(u))
	}
	return readiness.New(o)
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
	Health      *clienthealth.Report // nil when the profiling phase did not run
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
	// Decomposition is where the requests' time went, when the server
	// gave its own account; nil otherwise.
	Decomposition *timeDecomposition
	// Saturation is --over-saturation's result; nil when off.
	Saturation *saturationResult
	// Probes is --probe-request-rate's result; nil when off.
	Probes *probeResult
	// FailOnInvalid: an INVALID verdict (Health.Validity) fails the run.
	FailOnInvalid bool
}

// execute runs the phases with the processing pipeline behind them, and
// publishes their live state to the terminal view and rio.Observers.
// Telemetry collectors post their panels to board. It is the run's data
// flow, top to bottom:
//
//	sampler -> phase runner (client, workers) -> pipeline -> sinks
//	watchers alongside: progress, telemetry, the network probe
//	teardown: drain the pipeline, stop the watchers, finish the sinks, summarise
func execute(ctx context.Context, plan *Plan, rio IO, log *slog.Logger, board *live.Board, console *consoleGate) (*result, error) {
	clk := clock.New()
	sampler, err := dataset.NewSampler(plan.Sampling, plan.Dataset.Len(), plan.Seed)
	if err != nil {
		return nil, err
	}
	stop, requests, guard := newFailureGuard(ctx, plan, log)
	defer guard.release()
	recv, err := startTraceReceiver(plan, log)
	if err != nil {
		return nil, err
	}
	defer recv.Close()
	stop, requests, sat := newSaturationGuard(stop, requests, plan, log)
	pl, err := startPipeline(plan, clk, log, guard, sat, rio.Records, recv)
	if err != nil {
		return nil, err
	}
	client, preOpened, closeClient, err := openClient(ctx, plan, log)
	if err != nil {
		return nil, err
	}
	defer closeClient()
	w, err := startWatchers(ctx, plan, clk, log, newPublisher(runObservers(plan, rio, console, log), clk, pl.counts, pl.live, board), board)
	if err != nil {
		return nil, err
	}
	res := &result{Clock: clk, BenchmarkID: cmp.Or(rio.BenchmarkID, newBenchmarkID())}
	runner := &phaseRunner{
		plan: plan, clk: clk, client: client, sampler: sampler, pl: pl, log: log,
		interruptGrace: grace(plan.Config.GracePeriod()),
		abort:          rio.Abort, schedStat: rio.SchedStat,
		onStart: w.phaseStarted, requests: requests,
		runID: res.BenchmarkID, bust: plan.cacheBust(res.BenchmarkID),
	}
	if runner.cluster, err = startCluster(ctx, plan, clk, rio.Version, log); err != nil {
		return nil, err
	}
	defer runner.cluster.close()
	if err := writeRunConfig(plan, rio, res.BenchmarkID); err != nil {
		log.Warn("run_config.json not written", "error", err) // the run's own artifacts still are
	}
	loop := runPhases(ctx, stop, runner, w.tel, res)
	res.Stopped = res.Stopped || ctx.Err() != nil
	pl.wait()
	w.stop(ctx, pl, res)
	settle(ctx, res, pl, guard, sat)
	if loop.err != nil {
		return nil, loop.err
	}
	summarize(res, plan, pl, loop, w.tel)
	res.Decomposition = decompose(&res.Summary, &pl.sources)
	if loop.cpu != nil {
		judge(res, plan, pl, loop, client, preOpened, runner.cluster, log)
	}
	return res, nil
}

// settle records how the run ended once its records are all in: stopped
// by the failure guard, or ended by --over-saturation enforce (the stop
// condition the user chose, not an interruption: over_saturation says
// so); and closes the pipeline's writers.
func settle(ctx context.Context, res *result, pl *pipeline, guard *failureGuard, sat *saturationGuard) {
	if reason := guard.Reason(); reason != "" {
		res.Stopped, res.Aborted, res.AbortCode = true, reason, guard.ExitCode()
	}
	res.Saturation = sat.summary()
	if res.Saturation != nil && res.Saturation.Stopped && ctx.Err() == nil && res.Aborted == "" {
		res.Stopped = false
	}
	res.WriteErr = pl.close()
	res.Accuracy = pl.accuracy
}

// judge writes the client's health and the run's validity verdict.
func judge(res *result, plan *Plan, pl *pipeline, loop *phaseLoop, client *transport.Client, preOpened int, cl *clusterRun, log *slog.Logger) {
	res.Health = runHealth(loop.cpu, res, plan, &pl.sends, client, preOpened, cl != nil, log)
	var workers []cluster.WorkerInfo
	if cl != nil {
		workers = cl.ctl.Workers()
	}
	v := judgeValidity(plan, res.Health, res.Decomposition, workers, pl.sends.Records())
	res.Health.Validity = &v
	res.FailOnInvalid = plan.Config.Fidelity.FailOnInvalid
	log.Info("run validity: "+v.Verdict.String(), "reasons", len(v.Reasons))
}

// openClient raises the open-file limit and tunes the garbage collector
// for the run's streams, builds the transport client and pre-opens the
// --pre-connect connections. close undoes it all.
func openClient(ctx context.Context, plan *Plan, log *slog.Logger) (client *transport.Client, preOpened int, close func(), err error) {
	client, err = newTransportClient(plan)
	if err != nil {
		return nil, 0, nil, err
	}
	warnIgnoredProxies(plan, log)
	budget := connBudget(plan)
	budget.RaiseFileLimit(false, log)
	restore := budget.TuneGC(log)
	preOpened = preconnect(ctx, plan, client, log)
	return client, preOpened, func() {
		client.Close()
		restore()
	}, nil
}

// requestSender returns what the workers send through: the client itself,
// or, with --request-cancellation-rate, the client behind a canceller.
func (p *Plan) requestSender(client *transport.Client) worker.Sender {
	rate := p.Config.Load.RequestCancellationRate
	if rate == nil {
		return client
	}
	return cancellation.Wrap(client, *rate, clock.Seconds(p.Config.Load.RequestCancellationDelay), p.Seed)
}

// runObservers are the live observers of a run: the terminal view, the
// caller's, the periodic stats log and the overload watch.
func runObservers(plan *Plan, rio IO, console *consoleGate, log *slog.Logger) []live.Observer {
	observers := append([]live.Observer{newView(plan, rio, console)}, rio.Observers...)
	if sl := newStatsLog(log, plan.Config.StatsInterval(rio.IsTTY)); sl != nil {
		observers = append(observers, sl)
	}
	if ow := newOverloadWatch(plan, log); ow != nil { // overload said while running
		observers = append(observers, ow)
	}
	return observers
}

// watchers run alongside the phases: the progress publisher, the
// telemetry collectors and the network round-trip probe.
type watchers struct {
	clk      *clock.Clock
	log      *slog.Logger
	plan     *Plan
	progress *publisher
	tel      *telemetryRun
	probe    *netProbe // --network-latency-automatic; nil when off
}

// startWatchers starts telemetry and the network probe. Telemetry starts
// before the warmup: its first scrapes are the baseline every counter of
// the profiling window is measured from.
func startWatchers(ctx context.Context, plan *Plan, clk *clock.Clock, log *slog.Logger, progress *publisher, board *live.Board) (*watchers, error) {
	w := &watchers{clk: clk, log: log, plan: plan, progress: progress}
	var err error
	if w.tel, err = startTelemetry(ctx, plan, clk, log, board); err != nil {
		return nil, err
	}
	if w.probe, err = startNetProbe(ctx, plan, clk, log); err != nil {
		return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	return w, nil
}

// phaseStarted tells telemetry and the progress view that a phase began.
func (w *watchers) phaseStarted(spec *PhaseSpec, start time.Duration) {
	w.tel.phaseStarted(spec, w.clk.WallNanos(start))
	w.progress.start(spec, start)
}

// stop ends the watchers once the pipeline is drained: the network round
// trip goes to the accumulator (and its note to the console), telemetry
// writes its files, the progress view publishes its final snapshot.
func (w *watchers) stop(ctx context.Context, pl *pipeline, res *result) {
	rtt, note := networkRTT(ctx, w.plan, w.probe)
	pl.acc.SetNetworkRTT(rtt)
	res.NetworkNote = note
	if err := w.tel.finish(ctx); err != nil {
		// As in AIPerf, a telemetry file that could not be written does
		// not fail the benchmark.
		w.log.Error("telemetry export failed", "error", err)
	}
	w.progress.stop()
}

// phaseLoop is what running the phases leaves for the teardown.
type phaseLoop struct {
	err      error
	warmup   *phaseResult          // the first warmup phase; nil when none ran
	warmRan  bool                  // it ended without error
	profiled bool                  // a profiling phase ran: res.Profiling is set
	cpu      *clienthealth.Monitor // started with the first profiling phase; nil when none started
	probes   *prober               // --probe-request-rate, started with the first profiling phase; nil when off
	profiler bool                  // the server profiler was started
}

// runPhases runs the plan's phases in order until one fails, the run is
// interrupted or stopped, and folds their results into res: the first
// warmup, the profiling window (later profiling phases extend it) and
// every phase that ran. The server profiler runs over the profiling
// phases; the cluster report is written after the last phase.
func runPhases(ctx, stop context.Context, r *phaseRunner, tel *telemetryRun, res *result) *phaseLoop {
	l := &phaseLoop{}
	hooks := controlHooks(r.plan)
	for _, spec := range r.plan.Phases {
		if l.err != nil || ctx.Err() != nil || res.Stopped {
			break
		}
		if spec.Phase == record.Profiling && !l.profiled && hooks != nil && hooks.Profiling() {
			if err := hooks.StartProfiler(ctx); err != nil {
				l.err = &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("server_profiler start failed: %w", err)}
				break
			}
			l.profiler = true
		}
		if spec.Phase == record.Profiling && l.cpu == nil {
			l.cpu = clienthealth.StartMonitor(r.schedStat)
			if l.probes, l.err = r.startProber(); l.err != nil {
				break
			}
		}
		pr, err := r.run(stop, spec, phaseSeed(r.plan, spec))
		l.err = err
		res.addPhase(spec, pr, err)
		if spec.Phase == record.Warmup {
			tel.warmupDone(ctx) // AIPerf's end-of-warmup scrape
		}
		l.fold(spec, pr, err, res)
	}
	if r.cluster != nil {
		if err := r.cluster.writeReport(); err != nil {
			r.log.Error("cluster.json could not be written", "error", err)
		}
	}
	if l.profiler {
		if err := hooks.StopProfiler(context.WithoutCancel(ctx)); err != nil {
			r.log.Warn("server_profiler stop failed", "error", err)
		}
	}
	if l.cpu != nil {
		l.cpu.Stop()
	}
	if l.probes != nil {
		res.Probes = l.probes.stop()
	}
	return l
}

// phaseSeed is the seed of a phase's draws: the run's, offset by the
// profiling index; a warmup's own.
func phaseSeed(plan *Plan, spec *PhaseSpec) uint64 {
	if spec.Phase == record.Warmup {
		return plan.Seed ^ 0x5741524d5550 // "WARMUP"
	}
	return plan.Seed + uint64(max(0, spec.ProfilingIndex))
}

// addPhase records a phase that ran and whether it stopped the run.
func (res *result) addPhase(spec *PhaseSpec, pr phaseResult, err error) {
	res.Stopped = pr.Stopped
	if pr.Aborted != "" { // every load worker lost
		res.Stopped, res.Aborted, res.AbortCode = true, pr.Aborted, config.ExitFailure
	}
	res.Phases = append(res.Phases, phaseOutcome{Spec: spec, Result: pr, Ran: err == nil})
}

// fold keeps the first warmup and builds the profiling window: the first
// profiling phase's result, extended by every later one.
func (l *phaseLoop) fold(spec *PhaseSpec, pr phaseResult, err error, res *result) {
	switch {
	case spec.Phase == record.Warmup && !l.warmRan:
		l.warmRan = err == nil
		l.warmup = &pr
	case spec.Phase == record.Profiling && !l.profiled:
		res.Profiling, l.profiled = pr, true
	case spec.Phase == record.Profiling:
		p := &res.Profiling
		p.End, p.Stats.End = pr.End, pr.Stats.End
		p.Stats.Issued += pr.Stats.Issued
		p.Stats.Backlogged += pr.Stats.Backlogged
		p.Stats.Waited += pr.Stats.Waited
		p.Stats.Unsent += pr.Stats.Unsent
		p.Cancelled += pr.Cancelled
		p.Stopped = p.Stopped || pr.Stopped
	}
}

// summarize fills res from the drained pipeline: the profiling summary,
// each phase's, the warmup's, telemetry's and the timeslices.
func summarize(res *result, plan *Plan, pl *pipeline, l *phaseLoop, tel *telemetryRun) {
	if l.cpu != nil {
		// The profiling phase ran: throughputs divide by its window, from
		// the scheduler's start (what every due time is relative to).
		pl.acc.SetPhaseStart(res.Profiling.Stats.Start)
	}
	res.Summary = pl.acc.Summarize()
	pl.summarizePhases(res)
	if pl.warm != nil && l.warmRan {
		pl.warm.SetPhaseStart(l.warmup.Stats.Start)
		w := pl.warm.Summarize()
		res.Warmup = &w
	}
	if l.cpu != nil {
		res.Telemetry = tel.results(&res.Summary, &res.Profiling, l.warmup, res.Clock, plan)
	}
	res.Timeslices = pl.slices.slices(res.Clock.Wall)
}

// runHealth judges the client over the profiling phases and logs it.
func runHealth(cpu *clienthealth.Monitor, res *result, plan *Plan, sends *clienthealth.Sends, client *transport.Client, preOpened int, clustered bool, log *slog.Logger) *clienthealth.Report {
	h := clienthealth.Judge(cpu, &res.Summary, sends, plan.Profiling.Rate, plan.Profiling.heldBy())
	h.NoteConns(client.ConnHealth())
	if plan.Config.Endpoint.Streaming {
		h.NoteUnstreamed(sends)
	}
	h.NoteBacklog(res.Profiling.Stats, plan.Profiling.Concurrency == 0 && !clustered && capsInFlight(plan), connectionLimit(plan.Env))
	h.Preconnected = preOpened
	clienthealth.Log(h, log)
	return &h
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
	case res.FailOnInvalid && res.Health != nil && res.Health.Validity != nil && res.Health.Validity.Verdict == validity.Invalid:
		return &config.ExitError{Code: config.ExitInvalidRun, Err: fmt.Errorf("--fail-on-invalid: the run is INVALID: %s", invalidReasons(res.Health.Validity))}
	}
	return nil
}

func count(s *metrics.Summary, tag string) int {
	if r, ok := s.Get(tag); ok {
		return int(r.Value)
	}
	return 0
}

// writeInputs writes inputs.json.
func writeInputs(p *Plan) error {
	if err := export.WriteInputs(p.Paths.Inputs, sessions(p)); err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("writing inputs.json: %w", err)}
	}
	return nil
}

// sessions lists the request bodies per conversation for inputs.json.
func sessions(p *Plan) []export.Session {
	out := make([]export.Session, p.Dataset.Len())
	for i := range out {
		out[i] = export.Session{ID: p.Dataset.Conversation(i).ID, Payloads: p.Payloads[i]}
	}
	return out
}

func newBenchmarkID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ms is d in milliseconds, the unit of the artifacts' timings.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
