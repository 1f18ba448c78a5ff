package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/api"
	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/mlflow"
	"github.com/aiperf-go/aiperf/internal/otel"
	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/wandb"
)

// integrations are what a run sends besides its artifacts:
// the HTTP API, OTel metrics, MLflow and W&B uploads. start wires them
// into the run as observers; finish runs what comes after the artifacts.
type integrations struct {
	cfg *config.Config
	// linger keeps the API up after the run (AIPERF_API_SERVER_LINGER_SECONDS)
	// until it elapses or a client POSTs /api/shutdown.
	linger time.Duration
	stderr io.Writer
	getenv func(string) string
	dir    string // the run's artifact directory
	api    *api.Server
	closes []func()
	// mlflowLive streams live metrics to the run the export then reuses;
	// nil without --mlflow-tracking-uri or for experiments.
	mlflowLive *mlflow.Streamer
	single     bool
	benchID    string
	cliCommand string
}

// startIntegrations starts the integrations cfg asks for and adds their
// observers to bio. single is false for experiments and searches: their
// runs share the observers, and keep their own benchmark IDs.
func startIntegrations(cfg *config.Config, rio RunIO, bio *benchmark.IO, single bool) (*integrations, error) {
	if rio.Getenv == nil {
		rio.Getenv = func(string) string { return "" }
	}
	in := &integrations{cfg: cfg, stderr: rio.Stderr, dir: benchmark.ArtifactDir(cfg), getenv: rio.Getenv}
	if v := rio.Getenv("AIPERF_API_SERVER_LINGER_SECONDS"); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs < 0 {
			return nil, fmt.Errorf("AIPERF_API_SERVER_LINGER_SECONDS=%q: want a number of seconds", v)
		}
		in.linger = time.Duration(secs * float64(time.Second))
	}
	if single {
		bio.BenchmarkID = newBenchmarkID()
	}
	in.single, in.benchID, in.cliCommand = single, bio.BenchmarkID, rio.CLICommand
	log := slog.New(slog.NewTextHandler(rio.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if addr, ok := cfg.APIAddr(); ok {
		if err := in.startAPI(addr, rio, bio, log); err != nil {
			return nil, err
		}
	}
	if o := &cfg.Integrations.OTel; o.URL != "" {
		if err := in.startOTel(o, rio, bio, log); err != nil {
			return nil, err
		}
	}
	if !single && (cfg.Integrations.MLflow.TrackingURI != "" || cfg.Integrations.Wandb.Project != "") {
		fmt.Fprintln(rio.Stderr, "warning: --mlflow-* and --wandb-* upload single runs; the runs of this experiment (sweep, search or repeated runs) are not uploaded")
	}
	if cfg.Integrations.MLflow.TrackingURI != "" && single {
		s, err := mlflow.StartLive(context.Background(), in.mlflowOptions(), envSeconds(rio.Getenv, "AIPERF_OTEL_FLUSH_INTERVAL_SECONDS"))
		if err != nil {
			return nil, fmt.Errorf("--mlflow-tracking-uri %s: %w", cfg.Integrations.MLflow.TrackingURI, err)
		}
		fmt.Fprintf(rio.Stderr, "MLflow run %s (%s) at %s: streaming live metrics\n", s.Run().Name, s.Run().ID, cfg.Integrations.MLflow.TrackingURI)
		in.mlflowLive = s
		in.observe(bio, s)
	}
	return in, nil
}

// startAPI serves the HTTP API on addr and observes the run for it.
func (in *integrations) startAPI(addr string, rio RunIO, bio *benchmark.IO, log *slog.Logger) error {
	cfg, single := in.cfg, in.single
	conf, err := cfg.RedactedJSON()
	if err != nil {
		return fmt.Errorf("--api-port: %w", err)
	}
	info := api.Info{
		Config:      conf,
		Run:         api.RunInfo{BenchmarkID: bio.BenchmarkID, CLICommand: rio.CLICommand},
		Labels:      runLabels(cfg),
		ArtifactDir: in.dir,
		SummaryFile: benchmark.ResultPaths(cfg, in.dir).JSON,
		Experiment:  !single, // its runs' summaries are in subdirectories (kube results)
		Version:     stamped().Version,
		Secrets:     cfg.Secrets(),
		Header:      metricHeader(),
		Log:         log,
	}
	if s := cfg.Input.RandomSeed; s != nil {
		u := uint64(*s)
		info.Run.RandomSeed = &u
	}
	srv, err := api.Start(addr, info)
	if err != nil {
		return err
	}
	fmt.Fprintf(rio.Stderr, "API listening on %s (progress: %s/api/progress, WebSocket: %s/ws)\n", srv.URL(), srv.URL(), srv.URL())
	in.api = srv
	in.observe(bio, srv)
	in.closes = append(in.closes, func() { srv.Close() })
	return nil
}

// startOTel streams the run's metrics to the OTel collector o names.
func (in *integrations) startOTel(o *config.OTel, rio RunIO, bio *benchmark.IO, log *slog.Logger) error {
	cfg := in.cfg
	metricsOn, timingOn := cfg.OTelStreams()
	model := ""
	if len(cfg.Endpoint.ModelNames) > 0 {
		model = cfg.Endpoint.ModelNames[0]
	}
	res := otel.DefaultResource(bio.BenchmarkID, string(cfg.Endpoint.Type), model)
	for _, kv := range o.ResourceAttributes {
		res = append(res, otel.KV{Key: kv.Key, Value: kv.Value})
	}
	exp, err := otel.New(context.Background(), otel.Options{
		URL: string(o.URL), Metrics: metricsOn, Timing: timingOn, Resource: res,
		EndpointType: string(cfg.Endpoint.Type), Model: model,
		Provider: otel.InferProvider(o.GenAIProvider, cfg.Endpoint.URLs),
		Interval: envSeconds(rio.Getenv, "AIPERF_OTEL_FLUSH_INTERVAL_SECONDS"),
		Timeout:  envSeconds(rio.Getenv, "AIPERF_OTEL_REQUEST_TIMEOUT_SECONDS"),
		Log:      log,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(rio.Stderr, "Streaming OTel metrics to %s\n", o.URL)
	in.observe(bio, exp)
	in.closes = append(in.closes, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := exp.Close(ctx); err != nil {
			fmt.Fprintf(rio.Stderr, "warning: OTel export to %s: %v\n", o.URL, err)
		}
	})
	return nil
}

// mlflowOptions are the MLflow export's options for this run.
func (in *integrations) mlflowOptions() mlflow.Options {
	cfg := in.cfg
	m := &cfg.Integrations.MLflow
	o := mlflow.Options{
		TrackingURI: string(m.TrackingURI), RedactedURI: m.TrackingURI.String(),
		Experiment: cfg.MLflowExperiment(), RunName: m.RunName, ParentRunID: m.ParentRunID,
		ArtifactDir: in.dir, SummaryFile: benchmark.ResultPaths(cfg, in.dir).JSON, Globs: cfg.MLflowArtifactGlobs(),
		BenchmarkID: in.benchID, Version: stamped().Version, Getenv: in.getenv, Params: runParams(cfg, in.dir, in.cliCommand),
		Warn: func(s string) { fmt.Fprintln(in.stderr, "warning: "+s) },
	}
	for _, t := range m.Tags {
		o.Tags = append(o.Tags, mlflow.KV{Key: t.Key, Value: t.Value})
	}
	return o
}

// runParams are the parameters an experiment tracker records for a run
// (AIPerf's MLflow params), credentials redacted.
func runParams(cfg *config.Config, dir, cliCommand string) []mlflow.KV {
	ps := []mlflow.KV{
		{Key: "endpoint.type", Value: string(cfg.Endpoint.Type)},
		{Key: "endpoint.models", Value: strings.Join(cfg.Endpoint.ModelNames, ",")},
		{Key: "endpoint.urls", Value: strings.Join(config.RedactURLs(cfg.Endpoint.URLs), ",")},
		{Key: "output.artifact_directory", Value: dir},
	}
	mode := "concurrency"
	if cfg.Load.RequestRate != nil {
		mode = "request_rate"
	}
	ps = append(ps, mlflow.KV{Key: "timing.mode", Value: mode})
	if c := cfg.Concurrency(); c > 0 {
		ps = append(ps, mlflow.KV{Key: "loadgen.concurrency", Value: strconv.Itoa(c)})
	}
	if r := cfg.Load.RequestRate; r != nil {
		ps = append(ps, mlflow.KV{Key: "loadgen.request_rate", Value: strconv.FormatFloat(*r, 'g', -1, 64)})
	}
	if cfg.Load.BenchmarkDuration != nil {
		ps = append(ps, mlflow.KV{Key: "loadgen.benchmark_duration", Value: strconv.FormatFloat(*cfg.Load.BenchmarkDuration, 'g', -1, 64)})
	} else if n := cfg.RequestCount(); n > 0 {
		ps = append(ps, mlflow.KV{Key: "loadgen.request_count", Value: strconv.Itoa(n)})
	}
	if cliCommand != "" {
		ps = append(ps, mlflow.KV{Key: "aiperf.cli_command", Value: config.Scrub(cliCommand, cfg.Secrets())})
	}
	return ps
}

// wandbUpload sends the finished run to W&B.
func (in *integrations) wandbUpload(ctx context.Context) error {
	cfg := in.cfg
	w := &cfg.Integrations.Wandb
	summaryFile := benchmark.ResultPaths(cfg, in.dir).JSON
	b, err := os.ReadFile(summaryFile)
	if err != nil {
		return err
	}
	sum, err := results.ParseSummary(b)
	if err != nil {
		return err
	}
	conf, err := cfg.RedactedJSON()
	if err != nil {
		return err
	}
	files, err := mlflow.Collect(in.dir, config.DefaultMLflowArtifactGlobs())
	if err != nil {
		return err
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(f, "wandb/") })
	uctx, cancel := context.WithTimeout(ctx, envOr(in.getenv, "AIPERF_WANDB_EXPORT_TIMEOUT_SECONDS", 120*time.Second))
	defer cancel()
	res, err := wandb.Upload(uctx, wandb.Options{
		Project: w.Project, Entity: w.Entity, RunName: w.RunName, Tags: w.Tags, Config: conf,
		CLICommand: config.Scrub(in.cliCommand, cfg.Secrets()), Rows: wandbRows(sum),
		ArtifactDir: in.dir, SummaryFile: summaryFile, Files: files, BenchmarkID: in.benchID, Version: stamped().Version, Getenv: in.getenv,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(in.stderr, "W&B: uploaded run '%s' (%s) with %d artifact files\n", res.RunName, res.URL, len(res.Files))
	return nil
}

// wandbRows are the summary_metrics table: the console's metrics in
// display order, "Header (unit)", with the console statistics.
func wandbRows(sum *results.Summary) []wandb.Row {
	reg := metrics.Builtin().Metrics()
	slices.SortStableFunc(reg, func(a, b *metrics.Metric) int {
		ao, bo := a.Order, b.Order
		if ao == 0 {
			ao = 1 << 30
		}
		if bo == 0 {
			bo = 1 << 30
		}
		return ao - bo
	})
	var rows []wandb.Row
	for _, m := range reg {
		sm, ok := sum.Get(m.Tag)
		if !ok || m.Order == 0 {
			continue
		}
		row := wandb.Row{Label: fmt.Sprintf("%s (%s)", m.Header, sm.Unit)}
		for _, st := range wandb.Columns[1:] {
			if v, ok := sm.Stats[st]; ok {
				row.Values = append(row.Values, &v)
			} else {
				row.Values = append(row.Values, nil)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// summaryWritten reports whether the run wrote its summary JSON.
func summaryWritten(cfg *config.Config, dir string) bool {
	_, err := os.Stat(benchmark.ResultPaths(cfg, dir).JSON)
	return err == nil
}

// envOr is envSeconds with a default.
func envOr(getenv func(string) string, name string, def time.Duration) time.Duration {
	if d := envSeconds(getenv, name); d > 0 {
		return d
	}
	return def
}

// envSeconds reads a duration in seconds from the environment; 0 when
// unset or not a positive number.
func envSeconds(getenv func(string) string, name string) time.Duration {
	v, err := strconv.ParseFloat(getenv(name), 64)
	if err != nil || !(v > 0) {
		return 0
	}
	return time.Duration(v * float64(time.Second))
}

// observe adds o to the run's observers: snapshots, records or both.
func (in *integrations) observe(bio *benchmark.IO, o any) {
	if ob, ok := o.(live.Observer); ok {
		bio.Observers = append(bio.Observers, ob)
	}
	if ro, ok := o.(live.RecordObserver); ok {
		bio.Records = append(bio.Records, ro)
	}
}

// finish runs after the benchmark (and the automatic plot): the API
// serves the results, then everything is closed.
func (in *integrations) finish(ctx context.Context, runErr error) {
	if in.mlflowLive != nil {
		in.mlflowLive.Close()
	}
	if in.cfg.Integrations.MLflow.TrackingURI != "" && in.single && summaryWritten(in.cfg, in.dir) {
		var live *mlflow.StartedRun
		if in.mlflowLive != nil {
			live = in.mlflowLive.Run()
		}
		o := in.mlflowOptions()
		o.WasCancelled = apiStatus(ctx, runErr) == api.StatusCancelled
		ectx, cancel := context.WithTimeout(context.Background(), envOr(in.getenv, "AIPERF_MLFLOW_EXPORT_TIMEOUT_SECONDS", 120*time.Second))
		md, err := mlflow.Export(ectx, o, live)
		cancel()
		if err != nil {
			fmt.Fprintf(in.stderr, "warning: MLflow export to %s failed: %v\n", o.RedactedURI, err)
		} else {
			fmt.Fprintf(in.stderr, "MLflow: logged run '%s' (%s) with %d metrics and %d artifacts\n", md.RunName, md.RunID, len(md.MetricKeys), len(md.UploadedArtifacts))
		}
	}
	if in.cfg.Integrations.Wandb.Project != "" && in.single && summaryWritten(in.cfg, in.dir) {
		if err := in.wandbUpload(ctx); err != nil {
			fmt.Fprintf(in.stderr, "warning: W&B upload failed: %v\n", err)
		}
	}
	if in.api != nil {
		in.api.Finish(apiStatus(ctx, runErr), errText(runErr))
		if in.linger > 0 {
			fmt.Fprintf(in.stderr, "API serving the results at %s for %s (POST /api/shutdown stops it)\n", in.api.URL(), in.linger)
			t := time.NewTimer(in.linger)
			select {
			case <-t.C:
			case <-in.api.ShutdownRequested():
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	for i := len(in.closes) - 1; i >= 0; i-- {
		in.closes[i]()
	}
}

// apiStatus is /api/results' status for the run's outcome.
func apiStatus(ctx context.Context, err error) string {
	var ee *config.ExitError
	switch {
	case err == nil:
		return api.StatusComplete
	case ctx.Err() != nil, errors.As(err, &ee) && ee.Code == config.ExitInterrupted:
		return api.StatusCancelled
	}
	return api.StatusFailed
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// runLabels identify the run on every series the integrations send:
// model, endpoint type, streaming, and the profiling load.
func runLabels(cfg *config.Config) []api.Label {
	ls := []api.Label{
		{Name: "model", Value: joinSorted(cfg.Endpoint.ModelNames)},
		{Name: "endpoint_type", Value: string(cfg.Endpoint.Type)},
		{Name: "streaming", Value: strconv.FormatBool(cfg.Endpoint.Streaming)},
	}
	if c := cfg.Concurrency(); c > 0 {
		ls = append(ls, api.Label{Name: "concurrency", Value: strconv.Itoa(c)})
	}
	if r := cfg.Load.RequestRate; r != nil {
		ls = append(ls, api.Label{Name: "request_rate", Value: strconv.FormatFloat(*r, 'g', -1, 64)})
	}
	return ls
}

func joinSorted(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(s, ",")
}

// metricHeader names metric tags for display, from the metric registry.
func metricHeader() func(string) string {
	headers := map[string]string{}
	for _, m := range metrics.Builtin().Metrics() {
		headers[m.Tag] = m.Header
	}
	return func(tag string) string { return headers[tag] }
}

// newBenchmarkID is a fresh benchmark_id (12 hex digits, as the run's own).
func newBenchmarkID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
