package benchmark

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// The input_config block of profile_export_aiperf.json is AIPerf's
// benchmark configuration without the fields left unset (config v2
// layout: models, endpoint, datasets, phases, artifacts, slos, tokenizer,
// telemetry, runtime, logging), so that tools reading AIPerf's summaries
// find the same keys. It is built in two layers:
//   - inputConfigDoc: what the run resolved (the models, the phases and
//     dataset as planned, the artifact switches, the tokenizer that
//     loaded, the HTTP engine that ran), written by hand because no single
//     option holds it;
//   - every other option given on the command line or set away from its
//     default, at its input_config path (option.InputConfigPath), as its
//     config-file key encodes it (configfile.InputConfigSettings). A new
//     option appears there without an edit here.
//
// Where both write a key, the resolved value wins.
type inputConfigDoc struct {
	Models         inputModels        `json:"models"`
	Endpoint       inputEndpoint      `json:"endpoint"`
	Datasets       []inputDataset     `json:"datasets"`
	Phases         []inputPhase       `json:"phases"`
	Artifacts      inputArtifacts     `json:"artifacts"`
	SLOs           map[string]float64 `json:"slos,omitzero"`
	Tokenizer      inputTokenizer     `json:"tokenizer"`
	GPU            inputGPUTelemetry  `json:"gpu_telemetry"`
	Server         inputServerMetrics `json:"server_metrics"`
	NetworkLatency inputEnabled       `json:"network_latency"`
	// AIPerf writes its integrations' sections even when empty.
	OTel    struct{}          `json:"otel"`
	MLflow  struct{}          `json:"mlflow"`
	WandB   struct{}          `json:"wandb"`
	Runtime map[string]string `json:"runtime"`
}

// inputEnabled is a section that AIPerf always writes with its switch.
type inputEnabled struct {
	Enabled bool `json:"enabled"`
}

type inputModels struct {
	Items []inputModel `json:"items"`
}

type inputModel struct {
	Name string `json:"name"`
}

type inputEndpoint struct {
	URLs                []string               `json:"urls"`
	Type                string                 `json:"type"`
	Path                string                 `json:"path,omitzero"`
	Streaming           bool                   `json:"streaming,omitzero"`
	APIKey              config.Secret          `json:"api_key,omitzero"`
	Timeout             float64                `json:"timeout"`
	UseLegacyMaxTokens  bool                   `json:"use_legacy_max_tokens,omitzero"`
	UseServerTokenCount bool                   `json:"use_server_token_count,omitzero"`
	ResetKVCache        *config.ResetKVCache   `json:"reset_kv_cache,omitzero"`
	ServerProfiler      *config.ServerProfiler `json:"server_profiler,omitzero"`
	// Not AIPerf's: how the servers were reached (TLS, proxies, the
	// response head cap; 0 is the transport's default).
	TLS                        inputTLS `json:"tls,omitzero"`
	TrustEnv                   bool     `json:"trust_env,omitzero"`
	HTTPMaxResponseHeaderBytes int      `json:"http_max_response_header_bytes,omitzero"`
}

// inputTLS is the run's TLS settings (--tls-*, AIPERF_HTTP_SSL_VERIFY).
type inputTLS struct {
	CAFile     string `json:"ca_file,omitzero"`
	CertFile   string `json:"cert_file,omitzero"`
	KeyFile    string `json:"key_file,omitzero"`
	SkipVerify bool   `json:"skip_verify,omitzero"`
}

// inputGPUTelemetry and inputServerMetrics are AIPerf's telemetry
// sections: only enabled when turned off or left alone, the rest as the
// flags set them.
type inputGPUTelemetry struct {
	Enabled     bool     `json:"enabled"`
	URLs        []string `json:"urls,omitzero"`
	Collector   string   `json:"collector,omitzero"`
	Mode        string   `json:"mode,omitzero"`
	MetricsFile string   `json:"metrics_file,omitzero"`
}

type inputServerMetrics struct {
	Enabled bool     `json:"enabled"`
	URLs    []string `json:"urls,omitzero"` // [] when enabled
	Formats []string `json:"formats,omitzero"`
}

type inputDataset struct {
	Name       string       `json:"name"`
	Type       string       `json:"type"`
	Entries    int          `json:"entries"`
	RandomSeed *uint64      `json:"random_seed,omitzero"`
	Prompts    inputPrompts `json:"prompts"`
	inputShape `json:",inline"`
	inputMedia `json:",inline"`
}

type inputPrompts struct {
	ISL                  inputDist           `json:"isl"`
	OSL                  *inputDist          `json:"osl,omitzero"`
	BatchSize            *int                `json:"batch_size,omitzero"`
	SequenceDistribution []inputSeqDistEntry `json:"sequence_distribution,omitzero"`
}

type inputDist struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev,omitzero"`
}

type inputPhase struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Type        string   `json:"type"`
	Requests    int      `json:"requests,omitzero"`
	Duration    float64  `json:"duration,omitzero"`
	GracePeriod *float64 `json:"grace_period,omitzero"`
	Concurrency int      `json:"concurrency,omitzero"`
	Rate        float64  `json:"rate,omitzero"`
	Smoothness  float64  `json:"smoothness,omitzero"`
	Exclude     bool     `json:"exclude_from_results,omitzero"`
	Sessions    int      `json:"sessions,omitzero"`
	AutoOffset  bool     `json:"auto_offset,omitzero"`
	StartOffset *int     `json:"start_offset,omitzero"`
	EndOffset   *int     `json:"end_offset,omitzero"`
}

// inputArtifacts is AIPerf's artifacts section. The export level's
// records/raw switches come from --export-level's keys when it was set;
// summary is written only when turned off (false), as AIPerf leaves it
// out by default.
type inputArtifacts struct {
	Dir               string   `json:"dir"`
	Prefix            string   `json:"prefix,omitzero"`
	Summary           any      `json:"summary,omitzero"`
	SliceDuration     *float64 `json:"slice_duration,omitzero"`
	AutoPlot          bool     `json:"auto_plot"`
	PlotRequired      bool     `json:"plot_required"`
	ExportOutputsJSON bool     `json:"export_outputs_json,omitzero"`
}

// artifactsDoc writes the artifacts section of one run.
func artifactsDoc(p *Plan) inputArtifacts {
	cfg := p.Config
	a := inputArtifacts{Dir: p.Paths.Dir, Prefix: cfg.Output.ProfileExportPrefix, SliceDuration: cfg.Visuals.SliceDurationSeconds, AutoPlot: cfg.AutoPlot(),
		PlotRequired: cfg.Visuals.PlotRequired, ExportOutputsJSON: cfg.Artifacts.ExportOutputsJSON}
	if cfg.Artifacts.NoSummaryJSON {
		a.Summary = false
	}
	return a
}

// inputTokenizer is AIPerf's tokenizer section. AIPerf writes only the
// fields the user set; revision and trust_remote_code appear here when
// they differ from their defaults ("main", false).
type inputTokenizer struct {
	Name            string `json:"name"`
	Revision        string `json:"revision,omitzero"`
	TrustRemoteCode bool   `json:"trust_remote_code,omitzero"`
}

// inputConfig returns the input_config block of the run (see
// inputConfigDoc).
func inputConfig(p *Plan, ui config.UIType) *jsonObject {
	doc, err := orderedTree(resolvedInputConfig(p, ui))
	if err != nil { // the document is made of plain values: cannot happen
		panic(fmt.Sprintf("input_config: %v", err))
	}
	given := p.Config.Given
	for _, s := range configfile.InputConfigSettings(p.Config, func(o string) bool { return slices.Contains(given, o) }) {
		place(doc, s.Path, s.Value)
	}
	return doc
}

// resolvedInputConfig is the part of input_config that the run resolved.
func resolvedInputConfig(p *Plan, ui config.UIType) inputConfigDoc {
	cfg := p.Config
	doc := inputConfigDoc{
		Endpoint: inputEndpoint{
			URLs:                config.RedactURLs(cfg.Endpoint.URLs),
			Type:                string(cfg.Endpoint.Type),
			Path:                cfg.Endpoint.CustomEndpoint,
			Streaming:           p.EOptions.Streaming,
			APIKey:              cfg.Endpoint.APIKey,
			Timeout:             cfg.Endpoint.TimeoutSeconds,
			UseLegacyMaxTokens:  cfg.Endpoint.UseLegacyMaxTokens,
			UseServerTokenCount: cfg.Endpoint.UseServerTokenCount,
			ResetKVCache:        cfg.Telemetry.ResetKVCache,
			ServerProfiler:      cfg.Telemetry.ServerProfiler,
			TLS:                 inputTLS{cfg.Network.TLSCAFile, cfg.Network.TLSCertFile, cfg.Network.TLSKeyFile, cfg.Network.TLSSkipVerify},
			TrustEnv:            cfg.Network.TrustEnv,

			HTTPMaxResponseHeaderBytes: cfg.Network.MaxResponseHeaderBytes,
		},
		GPU:            gpuTelemetryDoc(&cfg.Telemetry.GPU),
		Server:         serverMetricsDoc(cfg),
		Artifacts:      artifactsDoc(p),
		SLOs:           p.SLOs,
		Tokenizer:      tokenizerDoc(p),
		NetworkLatency: inputEnabled{cfg.NetworkLatencyEnabled()},
		// The HTTP engine and version that ran (not AIPerf's keys).
		Runtime: map[string]string{"ui": string(ui), "http_client": string(cfg.HTTPEngine()), "http_version": string(cfg.HTTPVersionResolved())},
	}
	for _, m := range p.Models {
		doc.Models.Items = append(doc.Models.Items, inputModel{Name: m})
	}
	ds := inputDataset{
		Name: "main", Type: "synthetic", Entries: p.Dataset.Len(),
		Prompts: inputPrompts{ISL: inputDist{Mean: float64(cfg.Input.InputTokens.Mean), Stddev: cfg.Input.InputTokens.Stddev}},
	}
	if p.SeedSet {
		seed := p.Seed
		ds.RandomSeed = &seed
	}
	if m := cfg.Input.OutputTokens.Mean; m != nil {
		ds.Prompts.OSL = &inputDist{Mean: float64(*m), Stddev: cfg.Input.OutputTokens.Stddev}
	}
	shapeDoc(cfg, &ds)
	ds.inputMedia = mediaDoc(&cfg.Media)
	doc.Datasets = []inputDataset{ds}
	if p.Warmup != nil {
		w := phaseDoc("warmup", p.Warmup)
		w.Exclude = true
		doc.Phases = append(doc.Phases, w)
	}
	prof := phaseDoc("profiling", &p.Profiling)
	if p.Sessions.Fixed {
		r := &cfg.Replay
		prof.Type, prof.AutoOffset, prof.StartOffset, prof.EndOffset = "fixed_schedule", r.AutoOffset, r.StartOffset, r.EndOffset
	}
	doc.Phases = append(doc.Phases, prof)
	return doc
}

func gpuTelemetryDoc(g *config.GPUTelemetry) inputGPUTelemetry {
	doc := inputGPUTelemetry{Enabled: !g.Disabled}
	if g.Disabled || !(g.Requested || len(g.URLs) > 0 || g.Collector != "" || g.Dashboard || g.MetricsFile != "") {
		return doc
	}
	doc.URLs = config.RedactURLs(g.URLs)
	if doc.URLs == nil {
		doc.URLs = []string{}
	}
	doc.Collector, doc.Mode, doc.MetricsFile = string(config.GPUCollectorDCGM), "summary", g.MetricsFile
	if g.Collector != "" {
		doc.Collector = string(g.Collector)
	}
	if g.Dashboard {
		doc.Mode = "realtime_dashboard"
	}
	return doc
}

func serverMetricsDoc(cfg *config.Config) inputServerMetrics {
	s := &cfg.Telemetry.ServerMetrics
	doc := inputServerMetrics{Enabled: !s.Disabled, URLs: config.RedactURLs(s.URLs)}
	if s.Disabled {
		doc.URLs = nil
		return doc
	}
	if doc.URLs == nil {
		doc.URLs = []string{}
	}
	for _, f := range cfg.ServerMetricsExportFormats() {
		doc.Formats = append(doc.Formats, string(f))
	}
	return doc
}

func phaseDoc(name string, s *PhaseSpec) inputPhase {
	ph := inputPhase{Name: name, Kind: name, Type: "concurrency", Requests: s.Count, Sessions: s.Sessions, Concurrency: s.Concurrency}
	if s.Rate > 0 && s.Pattern != config.ArrivalConcurrencyBurst {
		ph.Type, ph.Rate = string(s.Pattern), s.Rate
		if s.Pattern == config.ArrivalGamma {
			ph.Smoothness = s.Smoothness
		}
	}
	if s.Duration > 0 {
		ph.Duration = s.Duration.Seconds()
		if s.Grace >= 0 {
			g := s.Grace.Seconds()
			ph.GracePeriod = &g
		}
	}
	return ph
}

// tokenizerDoc is the tokenizer as AIPerf names it in input_config:
// "builtin" for the embedded o200k_base, else the --tokenizer value (or
// the model name it defaulted to), with a non-default revision and
// trust_remote_code.
func tokenizerDoc(p *Plan) inputTokenizer {
	doc := inputTokenizer{Name: p.Tokenizer.Name(), TrustRemoteCode: p.Config.Tokenizer.TrustRemoteCode}
	if strings.HasPrefix(doc.Name, tokenizer.BuiltinAlias) {
		doc.Name = tokenizer.BuiltinAlias
	}
	if rev := p.Config.Tokenizer.Revision; rev != "" && rev != config.DefaultTokenizerRevision {
		doc.Revision = rev
	}
	return doc
}
