package tokenizer

import (
	"strings"
	"testing"
)

// TestResolve covers the names Resolve settles without the network; hub
// ids and local files are in open_test.go.
func TestResolve(t *testing.T) {
	tests := []struct {
		name, tokenizer, model string
		wantErr                string // empty: want the builtin tokenizer
	}{
		{"explicit builtin", "builtin", "Qwen/Qwen3-0.6B", ""},
		{"explicit encoding name", "o200k_base", "", ""},
		{"placeholder model", "", "mock-model", ""},
		{"placeholder model, other spelling", "", "Test_Model_v2", ""},
		{"model named builtin", "", "builtin", ""},
		{"missing local path", "./my-tokenizer", "", `tokenizer "./my-tokenizer": not a usable local path`},
		{"other tiktoken encoding", "cl100k_base", "", `tokenizer "cl100k_base": only the o200k_base tiktoken encoding is built in`},
		{"nothing", "", "", "no tokenizer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := Resolve(tc.tokenizer, tc.model)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve(%q, %q) error = %v, want prefix %q", tc.tokenizer, tc.model, err, tc.wantErr)
				}
				if tok != nil {
					t.Errorf("Resolve returned a tokenizer with an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q, %q): %v", tc.tokenizer, tc.model, err)
			}
			if tok.Name() != BuiltinName {
				t.Errorf("Name() = %q, want %q", tok.Name(), BuiltinName)
			}
		})
	}
}

// TestIsPlaceholderModel follows the examples and rules of AIPerf's
// is_fake_model_name.
func TestIsPlaceholderModel(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"mock-model", true},
		{"mock-llama", true},
		{"Test_Model_v2", true},
		{"test", true},
		{"DUMMY", true},
		{"placeholder", true},
		{"llama-mock", true},
		{"my_model", true},
		{"your-model-here", true},
		{"model-id", true},
		{"fake-gpt", true},
		{"Qwen/Qwen3-0.6B", false},
		{"./local-model", false},
		{"~/mock-model", false},
		{`C:\mock-model`, false},
		{"contestant", false},
		{"testing", false},
		{"mockingbird", false},
		{"gpt-4o", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsPlaceholderModel(tc.name); got != tc.want {
			t.Errorf("IsPlaceholderModel(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
