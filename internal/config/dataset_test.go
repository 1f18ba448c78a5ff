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
		{"known unsupported", Dataset{InputFile: "f", CustomType: "weka_trace"}, []string{"not supported yet"}},
		{"unknown", Dataset{InputFile: "f", CustomType: "x"}, []string{"invalid choice"}},
		{"public unsupported", Dataset{Public: "aimo"}, []string{"--public-dataset", "not supported yet"}},
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
