// Package option declares every option of `aiperf profile` once: its flag
// names, help group, placeholder, default, choices and usage, the
// config.Config field it sets, how its text is read, and the config-file
// keys it overrides. The command line (internal/cli), the config-file
// decoder and its JSON Schema (internal/configfile) are all derived from
// this table, so an option cannot be a flag without its YAML key or
// disagree with it about its field.
//
// The table is All(): the options in registration order, which is the
// order help prints them in within a group and the order did-you-mean
// breaks ties in.
package option

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/config"
)

// Option is one option, declared once.
type Option struct {
	// Name is the canonical flag name (kebab-case).
	Name string
	// Short is the one-letter shorthand ("" for none).
	Short string
	// Aliases are other long spellings, without dashes; snake_case
	// spellings of every name are accepted without being listed.
	Aliases []string
	// HelpAliases are spellings only shown in help ("-vv", which the
	// argument preparer rewrites to the canonical flag).
	HelpAliases []string
	// Group is the help group (one of the Group constants).
	Group string
	// Meta is the value placeholder shown in help; "" for booleans.
	Meta string
	// Default is the default shown in help; "" for none.
	Default string
	// Choices are the accepted values shown in help.
	Choices []string
	// Usage is the help text.
	Usage string

	// Bind returns a pointer to the config field the flag sets; its Go
	// type decides how the flag's text is read (see Kind for the types
	// that take several readings). Nil only with Set, or for --config,
	// which is read before the other flags.
	Bind func(c *config.Config) any
	// Set applies the flag's text to c when no single field holds the
	// option (the endpoint hooks, the telemetry lists); its error is
	// reported against the flag. Type is then the value's type name.
	Set  func(c *config.Config, s string) error
	Type string
	// Kind picks the reading when the field's type allows several.
	Kind Kind
	// Magic marks the options whose comma lists are sweeps (`--concurrency
	// 1,2,4`), refused as values.
	Magic bool
	// Each transforms every element of a list option.
	Each func(string) string
	// Normalize canonicalises a choice before validation; a plain string
	// field with Normalize set is a choice. Named string types are choices
	// normalised by config.NormalizeChoice unless Normalize says otherwise.
	Normalize func(string) string
	// Invert makes a boolean flag store its negation.
	Invert bool
	// NoForm also registers --no-<name>, setting the opposite value.
	NoForm bool
	// Sep and JSON read a list of key/value pairs: Sep separates key from
	// value; JSON also accepts a JSON object.
	Sep  string
	JSON bool
	// NoOptDefVal is the value of the flag given without one (booleans
	// need none: they are true).
	NoOptDefVal string
	// Redact says which part of the value is a secret, replaced by
	// "<redacted>" in the command line recorded in the artifacts.
	Redact Redaction
	// Multi flags take several values after one flag name, as in AIPerf
	// (`--extra-inputs a:1 b:2`); OptionalValue flags take zero or more.
	Multi, OptionalValue bool
	// Repeatable flags may be given more than once, each occurrence adding
	// to the list, as AIPerf's list-typed flags are (`--header A:1
	// --header B:2`). Any other flag given twice, under any of its
	// spellings, is a usage error naming it, as AIPerf's parser refuses it.
	Repeatable bool

	// Keys are the config-file keys the option overrides, the first being
	// its sweep path. An option without keys is command-line only.
	Keys []Key
	// InputConfig are the dot paths under "benchmark" where the option's
	// value appears in the input_config block of the summaries: a path of
	// one of its keys (the value is encoded as that key encodes it) or a
	// path of its own, for an option AIPerf records there without a
	// config-file key of ours (logging.level, runtime.workers). Nil: its
	// first key under "benchmark." (an option with none is not recorded).
	InputConfig []string
	// NoInputConfig keeps the option out of input_config (where the
	// resolved value is recorded elsewhere).
	NoInputConfig bool
}

// InputConfigPath is one place of an option's value in input_config.
type InputConfigPath struct {
	// Path is the dot path under "benchmark".
	Path string
	// Key is the config-file key at Path; nil for a path of the option's
	// own.
	Key *Key
}

// InputConfigPaths returns where o's value appears in input_config (see
// Option.InputConfig); none when it does not.
func (o *Option) InputConfigPaths() []InputConfigPath {
	if o.NoInputConfig {
		return nil
	}
	key := func(p string) *Key {
		for i := range o.Keys {
			if o.Keys[i].Path == "benchmark."+p {
				return &o.Keys[i]
			}
		}
		return nil
	}
	if o.InputConfig != nil {
		out := make([]InputConfigPath, len(o.InputConfig))
		for i, p := range o.InputConfig {
			out[i] = InputConfigPath{p, key(p)}
		}
		return out
	}
	for i := range o.Keys {
		if p, ok := strings.CutPrefix(o.Keys[i].Path, "benchmark."); ok {
			return []InputConfigPath{{p, &o.Keys[i]}}
		}
	}
	return nil
}

// Key is one config-file key of an option.
type Key struct {
	// Path is the dot path from the envelope root in snake_case; inside
	// benchmark.phases the segment after phases is the phase kind, inside
	// benchmark.datasets it is "0", the only dataset.
	Path string
	// Bind overrides the option's Bind when the key holds more (or less)
	// than the flag's field.
	Bind func(c *config.Config) any
	// Conv names the decoder when the field's type alone does not say how
	// to read the key.
	Conv Conv
	// Also are the other flags whose explicit value rewrites the key, for
	// a key several flags set (a control hook and its detail flags).
	Also []string
	// Ignored marks a key accepted for AIPerf compatibility that has no
	// effect here; Doc says why.
	Ignored bool
	// Doc is the key's description in the JSON Schema.
	Doc string
}

// Kind picks one reading of a field type that has several.
type Kind int

// The readings beyond the field type's own.
const (
	// Plain is the reading the field's type implies.
	Plain Kind = iota
	// Repeated: every occurrence of the flag is one element, commas
	// included.
	Repeated
	// ChoiceList: a comma-separated list of Choices.
	ChoiceList
	// OTelURL: an OTLP/HTTP metrics URL (/v1/metrics appended).
	OTelURL
)

// Redaction says which part of an option's value is a secret.
type Redaction int

// The redactions.
const (
	// NotSecret: the value is recorded as given.
	NotSecret Redaction = iota
	// Secret: the whole value (an API key).
	Secret
	// SecretHeaders: the values of credential-bearing headers.
	SecretHeaders
	// SecretURL: the password of a URL's user information.
	SecretURL
	// SecretFields: the values of sensitive request-body fields.
	SecretFields
)

// Conv names a config-file decoder of internal/configfile.
type Conv string

// The config-file decoders the table uses.
const (
	ConvAccuracyName   Conv = "accuracyName"
	ConvArtifactDir    Conv = "artifactDir"
	ConvChoice         Conv = "choice"
	ConvDuration       Conv = "duration"
	ConvEnabled        Conv = "enabled"
	ConvExtra          Conv = "extra"
	ConvGPUMode        Conv = "gpuMode"
	ConvHeaders        Conv = "headers"
	ConvMetricsURLs    Conv = "metricsURLs"
	ConvModels         Conv = "models"
	ConvOTelURL        Conv = "otelURL"
	ConvPairs          Conv = "pairs"
	ConvPhaseType      Conv = "phaseType"
	ConvRamp           Conv = "ramp"
	ConvRangeRatio     Conv = "rangeRatio"
	ConvRateSeries     Conv = "rateSeries"
	ConvRaw            Conv = "raw"
	ConvRecords        Conv = "records"
	ConvResetKVCache   Conv = "resetKVCache"
	ConvSeqDist        Conv = "seqDist"
	ConvServerProfiler Conv = "serverProfiler"
	ConvURLs           Conv = "urls"
	ConvWarmupType     Conv = "warmupType"
)

// All returns every option of `aiperf profile`, in registration order.
// The table is built once; callers must not modify it.
func All() []Option { return table() }

var table = sync.OnceValue(func() []Option {
	return slices.Concat(
		configOptions(),
		modelNamesOptions(),
		inputFileOptions(),
		hfSubsetOptions(),
		numSessionsOptions(),
		seqDistOptions(),
		tokenizerOptions(),
		audioBatchSizeOptions(),
		modelSelectionStrategyOptions(),
		awsOptions(),
		benchmarkDurationOptions(),
		fixedScheduleOptions(),
		connectionReuseStrategyOptions(),
		httpClientOptions(),
		preConnectOptions(),
		numProfileRunsOptions(),
		varySeedPerTrialOptions(),
		searchSpaceOptions(),
		noSweepTableOptions(),
		prefillConcurrencyOptions(),
		useCaseOptions(),
		warmupRequestCountOptions(),
		sliceDurationOptions(),
		resetKVCacheOptions(),
		otelURLOptions(),
		workersOptions(),
		uiTypeOptions(),
		exportOutputsJSONOptions(),
	)
})

// ByName returns the option whose canonical name is name.
func ByName(name string) (Option, bool) {
	for _, o := range All() {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// strs converts enum values for help.
func strs[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// formatFloat renders f the shortest way ("30", "0.5").
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
