package config

import (
	"strings"
	"testing"
)

func TestValidateDataset(t *testing.T) {
	zero := 0
	tests := []struct {
		name string
		d    Dataset
		want []string // substrings; none = valid
	}{
		{"empty", Dataset{}, nil},
		{"file", Dataset{InputFile: "f", CustomType: DatasetBurstGPTTrace, SamplingStrategy: SamplingRandom}, nil},
		{"sharegpt local", Dataset{InputFile: "f", Public: PublicShareGPT}, nil},
		{"type without file", Dataset{CustomType: DatasetSingleTurn}, []string{"--custom-dataset-type: requires --input-file"}},
		{"tracelab", Dataset{InputFile: "f", CustomType: "tracelab"}, nil},
		{"speed bench", Dataset{InputFile: "f", CustomType: "speed_bench_throughput_8k_mixed"}, nil},
		{"weka file", Dataset{InputFile: "f", CustomType: DatasetWekaTrace, MaxContextLength: new(int(1000))}, nil},
		{"unknown", Dataset{InputFile: "f", CustomType: "x"}, []string{"invalid choice"}},
		{"public hub", Dataset{Public: "llava_onevision", HFSubset: "sharegpt4o"}, nil},
		{"public unknown", Dataset{Public: "nope"}, []string{"--public-dataset: invalid choice \"nope\""}},
		{"public with a file", Dataset{Public: "aimo", InputFile: "f"}, []string{"only accepted as a local copy of sharegpt"}},
		{"weka repo alone", Dataset{HFWekaDataset: "org/traces"}, nil},
		{"weka_hf without repo", Dataset{Public: PublicWekaHF}, []string{"weka_hf needs --hf-weka-dataset"}},
		{"weka repo with another", Dataset{Public: "aimo", HFWekaDataset: "org/x"}, []string{"--hf-weka-dataset: selects --public-dataset weka_hf"}},
		{"weka repo malformed", Dataset{HFWekaDataset: "x"}, []string{"ORG/NAME"}},
		{"subset without hub", Dataset{Public: PublicShareGPT, HFSubset: "x"}, []string{"--hf-subset: only applies"}},
		{"filters", Dataset{Public: "exgentic", Filters: []KeyValue{{"harness", "claude_code"}}}, nil},
		{"filters elsewhere", Dataset{Public: "aimo", Filters: []KeyValue{{"a", "b"}}}, []string{"--dataset-filter: is only supported"}},
		{"filter twice", Dataset{Public: "exgentic", Filters: []KeyValue{{"a", "b"}, {"a", "c"}}}, []string{"given twice"}},
		{"max context elsewhere", Dataset{Public: "aimo", MaxContextLength: new(10)}, []string{"only supported by Weka traces"}},
		{"delays exclusive", Dataset{IgnoreTraceDelays: true, UseThinkTimeOnly: true}, []string{"cannot be combined with --use-think-time-only"}},
		{"bounds", Dataset{MaxContextLength: new(0), TraceSessionSampleRatio: new(1.5)}, []string{"--max-context-length: must be >= 1", "--trace-session-sample-ratio: must be in (0, 1]"}},
		{"public and type", Dataset{Public: PublicShareGPT, InputFile: "f", CustomType: DatasetSingleTurn}, []string{"cannot be combined"}},
		{"all at once", Dataset{SamplingStrategy: "x", BlockSize: &zero, CustomType: "y"}, []string{"--dataset-sampling-strategy", "--isl-block-size", "requires --input-file", "invalid choice \"y\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Dataset: tt.d}
			var p problems
			c.validateDataset(&p)
			got := ""
			for _, e := range p {
				got += e.Error() + "\n"
			}
			if len(tt.want) == 0 && got != "" {
				t.Errorf("unexpected problems:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q:\n%s", w, got)
				}
			}
		})
	}
	for _, typ := range SupportedCustomDatasetTypes() {
		if !typ.Known() {
			t.Errorf("%s is supported but not one of AIPerf's types", typ)
		}
	}
}
