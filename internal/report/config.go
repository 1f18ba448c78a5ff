package report

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// DefaultConfigYAML is the built-in plot configuration, AIPerf's presets
// plus this tool's (histograms, percentile bands, requests in flight).
//
//go:embed default_plot_config.yaml
var DefaultConfigYAML []byte

// RunConfigName is the plot configuration an auto-plot leaves in the
// artifact directory (AIPerf's reproducibility receipt), read back by a
// later `aiperf plot` of that directory.
const RunConfigName = ".aiperf-plot-config.yaml"

// Config is a plot configuration: which presets to draw and how.
type Config struct {
	Visualization Visualization `yaml:"visualization"`
	Settings      Settings      `yaml:"settings"`
	// Classification sorts runs into baselines and treatments by name.
	Classification *Classification `yaml:"experiment_classification"`
	// Source names where the configuration came from, for messages.
	Source string `yaml:"-"`
}

// Visualization lists and defines the presets.
type Visualization struct {
	MultiRunDefaults  []string        `yaml:"multi_run_defaults"`
	SingleRunDefaults []string        `yaml:"single_run_defaults"`
	MultiRunPlots     map[string]Spec `yaml:"multi_run_plots"`
	SingleRunPlots    map[string]Spec `yaml:"single_run_plots"`
}

// Settings are AIPerf's data-processing settings. Downsampling applies to
// server-metric time series.
type Settings struct {
	ServerMetricsDownsampling struct {
		Enabled           bool    `yaml:"enabled"`
		WindowSizeSeconds float64 `yaml:"window_size_seconds"`
		AggregationMethod string  `yaml:"aggregation_method"`
	} `yaml:"server_metrics_downsampling"`
}

// Classification is AIPerf's experiment_classification: glob patterns on
// run names that make a run a baseline (grey) or a treatment (green).
type Classification struct {
	Baselines  []string `yaml:"baselines"`
	Treatments []string `yaml:"treatments"`
	Default    string   `yaml:"default"`
}

// Classify returns "baseline" or "treatment" for a run name.
func (c *Classification) Classify(name string) string {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := filepath.Match(g, name); ok {
				return true
			}
		}
		return false
	}
	switch {
	case match(c.Baselines):
		return "baseline"
	case match(c.Treatments):
		return "treatment"
	case c.Default == "baseline":
		return "baseline"
	}
	return "treatment"
}

// Spec is one plot preset.
type Spec struct {
	Type        string `yaml:"type"`
	Description string `yaml:"description"`
	X           Axis   `yaml:"x"`
	Y           Axis   `yaml:"y"`
	Y2          Axis   `yaml:"y2"`
	// Stat is the statistic of a timeslice plot (avg, p50, p99, ...).
	Stat   string   `yaml:"stat"`
	Labels []string `yaml:"labels"`
	Groups []string `yaml:"groups"`
	Title  string   `yaml:"title"`
	XLabel string   `yaml:"x_label"`
	YLabel string   `yaml:"y_label"`
	// Source is where a single-run plot reads from: requests (default),
	// timeslices, gpu_telemetry.
	Source    string  `yaml:"source"`
	CILevel   float64 `yaml:"ci_level"`
	Autoscale string  `yaml:"autoscale"`
	// UseSliceDuration labels timeslice bars with their time span.
	UseSliceDuration bool `yaml:"use_slice_duration"`
	// AIPerf's Plotly styling keys, accepted and not used: the renderers
	// here pick their own styles.
	PrimaryStyle     map[string]any `yaml:"primary_style"`
	SecondaryStyle   map[string]any `yaml:"secondary_style"`
	SupplementaryCol string         `yaml:"supplementary_col"`
}

// Axis is a plot axis: a column name ("request_number") or, for multi-run
// plots, a metric statistic ({metric: request_latency, stat: avg}).
type Axis struct {
	Metric string `yaml:"metric"`
	Stat   string `yaml:"stat"`
}

// UnmarshalYAML reads either form.
func (a *Axis) UnmarshalYAML(b []byte) error {
	var s string
	if err := yaml.Unmarshal(b, &s); err == nil {
		a.Metric = strings.TrimSpace(s)
		return nil
	}
	var m struct {
		Metric string `yaml:"metric"`
		Stat   string `yaml:"stat"`
	}
	if err := yaml.UnmarshalWithOptions(b, &m, yaml.Strict()); err != nil {
		return fmt.Errorf("an axis is a column name or {metric, stat}: %w", err)
	}
	a.Metric, a.Stat = m.Metric, m.Stat
	return nil
}

// Plot types, as AIPerf's plot plugin category names them.
const (
	TypeArea        = "area"
	TypeDualAxis    = "dual_axis"
	TypeHistogram   = "histogram"
	TypePareto      = "pareto"
	TypeBands       = "percentile_bands"
	TypeTimeline    = "request_timeline"
	TypeScatter     = "scatter"
	TypeScatterLine = "scatter_line"
	TypeScatterPct  = "scatter_with_percentiles"
	TypeTimeslice   = "timeslice"
	TypeUncertainty = "latency_throughput_uncertainty"
)

// Types lists every plot type.
func Types() []string {
	return []string{TypeArea, TypeDualAxis, TypeHistogram, TypePareto, TypeBands, TypeTimeline,
		TypeScatter, TypeScatterLine, TypeScatterPct, TypeTimeslice, TypeUncertainty}
}

// multiRunTypes are the types drawn across runs.
var multiRunTypes = []string{TypePareto, TypeScatterLine, TypeUncertainty}

// ParseConfig parses and checks a plot configuration; source names it in
// errors. Every problem is reported, each with its preset's name.
func ParseConfig(data []byte, source string) (*Config, error) {
	var c Config
	if err := yaml.UnmarshalWithOptions(data, &c, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("plot configuration %s: %s", source, yaml.FormatError(err, false, true))
	}
	c.Source = source
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("plot configuration %s: %w", source, err)
	}
	return &c, nil
}

func (c *Config) check() error {
	var errs []error
	v := &c.Visualization
	for _, set := range []struct {
		section  string
		defaults []string
		plots    map[string]Spec
		multi    bool
	}{
		{"multi_run", v.MultiRunDefaults, v.MultiRunPlots, true},
		{"single_run", v.SingleRunDefaults, v.SingleRunPlots, false},
	} {
		for _, name := range set.defaults {
			if _, ok := set.plots[name]; !ok {
				errs = append(errs, fmt.Errorf("visualization.%s_defaults names %q, which visualization.%s_plots does not define", set.section, name, set.section))
			}
		}
		for _, name := range sortedKeys(set.plots) {
			s := set.plots[name]
			where := fmt.Sprintf("visualization.%s_plots.%s", set.section, name)
			switch {
			case !slices.Contains(Types(), s.Type):
				errs = append(errs, fmt.Errorf("%s: type %q is not a plot type (%s)", where, s.Type, strings.Join(Types(), ", ")))
			case set.multi != slices.Contains(multiRunTypes, s.Type):
				kind := "a single-run"
				if set.multi {
					kind = "a multi-run"
				}
				errs = append(errs, fmt.Errorf("%s: type %s cannot be %s plot", where, s.Type, kind))
			}
			if s.Y.Metric == "" && s.Type != TypeHistogram {
				errs = append(errs, fmt.Errorf("%s: y is required", where))
			}
			if s.X.Metric == "" && s.Type != TypeTimeslice {
				errs = append(errs, fmt.Errorf("%s: x is required", where))
			}
			if s.Type == TypeDualAxis && s.Y2.Metric == "" {
				errs = append(errs, fmt.Errorf("%s: a dual_axis plot needs y2", where))
			}
			if s.CILevel != 0 && !(s.CILevel > 0 && s.CILevel < 1) {
				errs = append(errs, fmt.Errorf("%s: ci_level %v is not in (0, 1)", where, s.CILevel))
			}
		}
	}
	return errors.Join(errs...)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// DefaultConfig returns the built-in configuration.
func DefaultConfig() *Config {
	c, err := ParseConfig(DefaultConfigYAML, "(built-in)")
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// LoadConfig resolves the configuration as AIPerf does: explicit (a file
// given with --config) first, then the run directory's receipt, then the
// user's file, which is created from the default on first use, then the
// default. userFile "" skips the user's file.
func LoadConfig(explicit, runDir, userFile string) (*Config, error) {
	read := func(path string) (*Config, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("plot configuration: %w", err)
		}
		return ParseConfig(b, path)
	}
	if explicit != "" {
		return read(explicit)
	}
	if runDir != "" {
		if p := filepath.Join(runDir, RunConfigName); fileExists(p) {
			return read(p)
		}
	}
	if userFile != "" {
		if fileExists(userFile) {
			return read(userFile)
		}
		// First use: leave an editable copy, as AIPerf does. Failing to
		// write it is no reason not to plot.
		if os.MkdirAll(filepath.Dir(userFile), 0o755) == nil {
			_ = os.WriteFile(userFile, DefaultConfigYAML, 0o644)
		}
	}
	return DefaultConfig(), nil
}

// UserConfigPath is ~/.aiperf/plot_config.yaml; "" without a home.
func UserConfigPath() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".aiperf", "plot_config.yaml")
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
