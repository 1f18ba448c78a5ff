package cli

import (
	"context"
	"strings"
	"testing"
)

// TestPluginsCommand runs `aiperf plugins` in each of its forms, as AIPerf's
// command: the package summary, every category, one category's plugins, one
// plugin with its metadata; unknown names exit 2 with what is available.
func TestPluginsCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		code int
		want []string // substrings of stdout (or stderr for errors)
	}{
		{[]string{"plugins"}, 0, []string{"Installed Packages", "aiperf-go", "v1.2.3", "aiperf plugins --all"}},
		{[]string{"plugins", "--all"}, 0, []string{"Plugin Categories", "Endpoint", "URL Selection Strategy", "nim_rankings", "poisson", "single_turn"}},
		{[]string{"plugins", "endpoint"}, 0, []string{"Endpoint Types", "huggingface_generate", "video_generation", "aiperf plugins endpoint <type>"}},
		{[]string{"plugins", "custom-dataset-loader"}, 0, []string{"Custom Dataset Loader Types", "mooncake_trace"}},
		{[]string{"plugins", "endpoint", "huggingface_generate"}, 0, []string{"endpoint:huggingface_generate", "/generate_stream", "streaming_path", "supports_streaming", "true"}},
		{[]string{"plugins", "endpoint", "video_generation"}, 0, []string{"requires_polling", "requires_form_data", "Video Generation Metrics"}},
		{[]string{"plugins", "--validate"}, 0, []string{"(OK) Endpoints (19)", "All checks passed"}},
		// Every dataset type and public dataset, listed under one word.
		{[]string{"plugins", "dataset"}, 0, []string{"Dataset Composer Types", "Custom Dataset Loader Types", "Public Dataset Loader Types", "Dataset Sampler Types",
			"baseten_trace", "dag_jsonl", "sagemaker_data_capture", "tracelab", "weka_trace", "speed_bench_throughput_32k_high_entropy",
			"aimo_numina_1_5", "librispeech", "gigaspeech", "instruct_coder", "blazedit_10k", "exgentic_v2", "semianalysis_cc_traces_weka_062126_256k", "weka_hf"}},
		{[]string{"plugins", "public-dataset-loader", "librispeech"}, 0, []string{"openslr/librispeech_asr", "clean", "hf_asr"}},
		{[]string{"plugins", "nope"}, 2, []string{"Unknown category: nope", "Available: endpoint"}},
		{[]string{"plugins", "endpoint", "grpc"}, 2, []string{"Not found: endpoint:grpc", "chat"}},
	} {
		r := runMain(t, context.Background(), nil, tt.args...)
		if r.code != tt.code {
			t.Errorf("aiperf %v: exit %d; want %d\nstderr: %s", tt.args, r.code, tt.code, r.stderr)
			continue
		}
		out := r.stdout + r.stderr
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("aiperf %v output lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
}
