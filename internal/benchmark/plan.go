// Package benchmark is the composition root: it turns a validated
// config.Config into a plan (tokenizer, dataset, endpoint, request bodies,
// metrics, artifact paths, phases) and runs it, wiring the stages
//
//	dataset -> timing.Scheduler -> worker.Pool (endpoint + transport)
//	        -> metrics.Processor x N -> metrics.Accumulator -> export
//
// It is the only package that knows the whole flow; every other package
// owns one stage and its own options.
package benchmark

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"time"

	"github.com/aiperf-go/aiperf/internal/adaptive"
	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// Plan is everything resolved before the first request: nothing in it
// changes while the benchmark runs.
type Plan struct {
	// Env is the environment the run reads (IO.Env); nil: none set.
	Env    environ.Snapshot
	Config *config.Config
	// aws is the run's SigV4 signer, made once (aws.go).
	aws *awsSigning

	Models   []string
	Endpoint endpoint.Endpoint
	Meta     endpoint.Metadata
	EOptions endpoint.Options
	// Misfit names the endpoint type a response fits when Endpoint
	// cannot read it (did you mean --endpoint-type chat?).
	Misfit    *endpoint.Misfit
	Tokenizer tokenizer.Tokenizer
	// TokenizerConfig is the tokenizer's raw tokenizer_config.json (chat
	// template, special tokens); nil when it has none (builtin).
	TokenizerConfig []byte
	// TokenizerSource says where the tokenizer came from (builtin, a
	// local path, or the hub id, revision, commit and cache path).
	TokenizerSource string
	// ChatTemplate renders prompts for --apply-chat-template (ISL counting
	// and synthetic-length compensation); nil when the flag is off or the
	// tokenizer has no usable template, and then ChatTemplateErr says why.
	ChatTemplate    *chattemplate.Template
	ChatTemplateErr error
	URLs            []string    // full request URLs: base URL + endpoint path
	Header          http.Header // headers every request carries

	Dataset  *dataset.Dataset
	Payloads [][][]byte // [conversation][turn] request body
	Sampling string     // dataset sampling strategy
	// DatasetType is the --input-file format (given or detected) or
	// "sharegpt"; "" for synthetic data. DatasetTimestamps reports that
	// its first turn has a timestamp (trace replay).
	DatasetType       string
	DatasetTimestamps bool

	Registry *metrics.Registry
	Metrics  []*metrics.Metric // selected for this run
	SLOs     map[string]float64

	Paths export.Paths

	Seed    uint64 // the run's random seed (drawn when none was given)
	SeedSet bool

	Warmup    *PhaseSpec // nil when no warmup phase runs
	Profiling PhaseSpec
	// Phases are every phase in run order: the warmup (if any) and the
	// profiling phase, or a config file's named phases (then Warmup and
	// Profiling are the first of each kind).
	Phases []*PhaseSpec
	// Adaptive is the profiling phase's adaptive-scale controller; nil
	// when it has none.
	Adaptive *adaptive.Config

	// Sessions is how conversations run (fixed schedule, multi-turn); set
	// by planSessions once the dataset is built.
	Sessions sessionPlan

	// Accuracy is accuracy mode's problems and grader; nil when
	// --accuracy-benchmark is not set.
	Accuracy *accuracyPlan
}

// usageError marks a problem with the user's input found while planning:
// it maps to exit code 2, like a flag error.
func usageError(err error) error {
	return &config.ExitError{Code: config.ExitUsage, Err: err}
}

// NewPlan resolves cfg. Problems the user can fix (an unknown goodput tag,
// an unsupported tokenizer) are reported together as a usage error.
// env is the environment the run reads (IO.Env).
func NewPlan(cfg *config.Config, reg *builtin.Registries, env environ.Snapshot) (*Plan, error) {
	// Synthetic data goes out in order, as in AIPerf 0.13 (its synthetic
	// dataset defaults to sequential sampling); file loaders choose their own.
	p := &Plan{Config: cfg, Models: cfg.Endpoint.ModelNames, Sampling: dataset.SamplingSequential, Env: env}
	var problems []error

	problems = append(problems, p.resolveEndpoint(reg)...)
	if _, err := tlsConfig(cfg); err != nil {
		problems = append(problems, err)
	}

	tok, err := tokenizer.Open(cfg.Tokenizer.Name, firstModel(cfg), tokenizer.Options{
		Revision:        cfg.Tokenizer.Revision,
		TrustRemoteCode: cfg.Tokenizer.TrustRemoteCode,
	})
	if err != nil {
		problems = append(problems, fmt.Errorf("--tokenizer: %w", err))
	} else {
		p.Tokenizer, p.TokenizerConfig, p.TokenizerSource = tok.Tokenizer, tok.ConfigJSON, tok.Source
	}

	p.Registry = metrics.Builtin()
	if p.Meta.Type != "" {
		p.Metrics = p.Registry.Select(metrics.Selection{
			Streaming:           cfg.Endpoint.Streaming && p.Meta.SupportsStreaming,
			ProducesTokens:      p.Meta.ProducesTokens,
			TokenizesInput:      p.Meta.TokenizesInput,
			SupportsImages:      p.Meta.SupportsImages,
			SupportsAudio:       p.Meta.SupportsAudio,
			SupportsVideos:      p.Meta.SupportsVideos,
			ProducesVideos:      p.Meta.ProducesVideos,
			UseServerTokenCount: cfg.Endpoint.UseServerTokenCount,
			Goodput:             len(cfg.Input.Goodput) > 0,
		})
		if len(cfg.Input.Goodput) > 0 {
			if err := metrics.ValidateSLOs(cfg.Input.Goodput, p.Metrics); err != nil {
				problems = append(problems, fmt.Errorf("--goodput: %w", err))
			}
			p.SLOs = cfg.Input.Goodput
		}
	}
	if len(problems) > 0 {
		return nil, usageError(errors.Join(problems...))
	}

	p.shapeRequests()

	if cfg.Input.RandomSeed != nil {
		p.Seed, p.SeedSet = uint64(*cfg.Input.RandomSeed), true
	} else {
		var b [8]byte
		rand.Read(b[:])
		p.Seed = binary.LittleEndian.Uint64(b[:]) >> 1 // keep it a valid non-negative int64 for artifacts
	}

	p.Profiling = profilingSpec(cfg)
	shapeSpec(cfg, &p.Profiling)
	ac, err := adaptiveConfig(cfg)
	if err != nil {
		return nil, err
	}
	p.Adaptive = ac
	switch {
	case cfg.AgenticReplay():
		agenticProfilingSpec(cfg, &p.Profiling)
		p.Warmup = agenticWarmupSpec(cfg)
	case cfg.WarmupEnabled():
		p.Warmup = warmupSpec(cfg, &p.Profiling)
	}
	p.Phases = phaseList(cfg, p)

	p.Paths = export.NewPaths(artifactDir(cfg, p.Meta), cfg.Output.ProfileExportPrefix, exportLevel(cfg))
	return p, nil
}

// resolveEndpoint looks up the endpoint type and builds its Endpoint;
// it returns the problems found. A load worker resolves its endpoint the
// same way from the controller's configuration.
func (p *Plan) resolveEndpoint(reg *builtin.Registries) []error {
	plugin, err := reg.Endpoints.Lookup(string(p.Config.Endpoint.Type))
	if err != nil {
		return []error{fmt.Errorf("--endpoint-type: %w", err)}
	}
	p.Meta = plugin.Meta
	problems := p.checkPromptSource()
	if p.Endpoint, err = buildEndpoint(p.Config, plugin); err != nil {
		problems = append(problems, err)
	}
	p.Misfit = endpoint.NewMisfit(plugin.Meta.Type, reg.ShapeCandidates())
	return problems
}

// shapeRequests sets what every request carries: the endpoint options,
// the URLs and the headers (after resolveEndpoint).
func (p *Plan) shapeRequests() {
	cfg := p.Config
	p.EOptions = endpoint.Options{
		Model:               firstModel(cfg),
		Streaming:           cfg.Endpoint.Streaming && p.Meta.SupportsStreaming,
		UseLegacyMaxTokens:  cfg.Endpoint.UseLegacyMaxTokens,
		PerChunkUsage:       cfg.Endpoint.PerChunkUsage,
		UseServerTokenCount: cfg.Endpoint.UseServerTokenCount,
		Extra:               extraInputs(cfg),
	}
	p.URLs = endpointURLs(cfg, p.Meta, p.EOptions.Streaming)
	p.Header = requestHeader(cfg, p.Endpoint, p.EOptions.Streaming)
}

// BuildDataset generates the prompts and the request bodies the endpoint
// makes of them. It runs after NewPlan so that configuration errors are
// reported before any prompt is generated.
func (p *Plan) BuildDataset() error {
	if p.Config.AccuracyEnabled() {
		return p.buildAccuracyDataset() // accuracy.go
	}
	if p.Config.Dataset.FromFile() {
		p.setUpChatTemplate()
		return p.loadFileDataset()
	}
	if p.Config.Endpoint.Type.IsRankings() {
		return p.buildRankingsDataset()
	}
	in := p.Config.Input
	o := synthesis.SyntheticOptions{
		ISLMean:   in.InputTokens.Mean,
		ISLStddev: in.InputTokens.Stddev,
		OSLStddev: int(in.OutputTokens.Stddev),
		Entries:   p.Config.DatasetEntries(),
		Seed:      p.Seed,
		SeedSet:   p.SeedSet,
		Deferred:  true,
	}
	if in.OutputTokens.Mean != nil {
		o.OSLMean = *in.OutputTokens.Mean
	}
	p.shapeSynthetic(&o)
	p.setUpChatTemplate()
	p.compensateSyntheticISL(&o)
	if err := p.shapePromptSource(&o); err != nil {
		return err
	}
	ds, err := synthesis.Synthetic(o, p.Tokenizer)
	if err != nil {
		return usageError(fmt.Errorf("synthetic dataset: %w", err))
	}
	if err := p.addSyntheticMedia(ds); err != nil {
		return err
	}
	p.Dataset = ds
	if err := p.formatPayloads(); err != nil {
		return err
	}
	p.countTemplatedISL()
	return nil
}

// NewArrivals returns the spec's arrival schedule, or nil for a closed loop
// (concurrency mode). seed feeds the random patterns.
func (s *PhaseSpec) NewArrivals(seed uint64) (timing.Arrivals, error) {
	curve, err := s.rateCurve(seed)
	if err != nil {
		return nil, err
	}
	if curve != nil {
		return timing.Varying(string(s.Pattern), curve, s.Smoothness, seed)
	}
	switch {
	case s.Rate <= 0 || s.Pattern == config.ArrivalConcurrencyBurst:
		return nil, nil
	case s.Pattern == config.ArrivalConstant:
		return timing.Constant(s.Rate)
	case s.Pattern == config.ArrivalGamma:
		return timing.Gamma(s.Rate, s.Smoothness, seed)
	default:
		return timing.Poisson(s.Rate, seed)
	}
}

func profilingSpec(cfg *config.Config) PhaseSpec {
	s := PhaseSpec{
		Phase:       record.Profiling,
		Count:       cfg.RequestCount(),
		Concurrency: cfg.Concurrency(),
		Pattern:     cfg.ArrivalPattern(),
		Smoothness:  cfg.ArrivalSmoothness(),
		Grace:       -1, // a count-bound phase waits for every response
	}
	if cfg.Load.RequestRate != nil {
		s.Rate = *cfg.Load.RequestRate
	}
	if cfg.Load.BenchmarkDuration != nil {
		s.Duration = seconds(*cfg.Load.BenchmarkDuration)
		s.Grace = grace(cfg.GracePeriod())
	}
	return s
}

// artifactDir is --output-artifact-dir, plus AIPerf's per-run sub-directory
// (model-service-endpoint-stimulus) when the directory was not given.
func artifactDir(cfg *config.Config, meta endpoint.Metadata) string {
	if cfg.Output.ArtifactDirExplicit {
		return cfg.Output.ArtifactDir
	}
	// A replay auto-detected from the dataset is only known later; the
	// explicit flag names the directory as AIPerf does.
	st := export.Stimulus{Concurrency: cfg.Concurrency(), FixedSchedule: cfg.Replay.FixedSchedule}
	if cfg.Load.RequestRate != nil {
		st.RequestRate = *cfg.Load.RequestRate
		if cfg.Load.Concurrency == nil {
			st.Concurrency = 0
		}
	}
	return filepath.Join(cfg.Output.ArtifactDir, export.DirName(cfg.Endpoint.ModelNames, meta.ServiceKind, meta.Type, st))
}

// ArtifactDir is the directory Run writes cfg's artifacts to, resolved as
// Run resolves it (with AIPerf's per-run sub-directory when
// --output-artifact-dir was not given). An experiment writes its own
// artifacts there and puts the runs below it.
func ArtifactDir(cfg *config.Config) string {
	if f, err := builtin.New().Endpoints.Lookup(string(cfg.Endpoint.Type)); err == nil {
		return artifactDir(cfg, f.Meta)
	}
	return cfg.Output.ArtifactDir
}

// ResultPaths are the files Run writes for cfg when its artifacts go to
// dir: the summary JSON (profile_export_aiperf.json, or its
// --profile-export-prefix name), the per-request JSONL, ...
func ResultPaths(cfg *config.Config, dir string) export.Paths {
	return export.NewPaths(dir, cfg.Output.ProfileExportPrefix, exportLevel(cfg))
}

func exportLevel(cfg *config.Config) export.Level {
	l, err := export.ParseLevel(string(cfg.Output.ExportLevel))
	if err != nil { // Validate has already rejected anything else
		return export.LevelRecords
	}
	return l
}

func firstModel(cfg *config.Config) string {
	if len(cfg.Endpoint.ModelNames) == 0 {
		return ""
	}
	return cfg.Endpoint.ModelNames[0]
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// grace converts a grace period in seconds to a wait; +Inf (and anything
// too long for a time.Duration) means wait forever, -1.
func grace(s float64) time.Duration {
	if math.IsInf(s, 1) || s >= math.MaxInt64/float64(time.Second) {
		return -1
	}
	return seconds(s)
}
