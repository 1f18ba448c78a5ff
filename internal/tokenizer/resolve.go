package tokenizer

import (
	"slices"
	"strings"
)

// BuiltinAlias is the --tokenizer value that selects the built-in tokenizer.
const BuiltinAlias = "builtin"

// Resolve returns the tokenizer AIPerf would use for --tokenizer name and
// --model model, with default Options (revision "main", the process
// environment). It is Open without what comes with the tokenizer.
//
// An empty name means "the model's own tokenizer", so model is resolved in
// its place. "builtin" and "o200k_base" select Builtin. When --tokenizer was
// not given and the model name is an obvious placeholder ("mock-model",
// "test-model", "fake-llama", ...; see IsPlaceholderModel), AIPerf
// substitutes the built-in tokenizer instead of looking the name up on the
// HuggingFace Hub, and so does Resolve. An explicit --tokenizer is never
// treated as a placeholder. Any other name is a local path or a HuggingFace
// Hub id (see Open).
func Resolve(name, model string) (Tokenizer, error) {
	res, err := Open(name, model, Options{})
	if err != nil {
		return nil, err
	}
	return res.Tokenizer, nil
}

// isBuiltinName reports whether name selects the built-in tokenizer: the
// alias, the encoding's own name, or (only when it came from --model) a
// placeholder model name.
func isBuiltinName(name string, explicit bool) bool {
	return name == BuiltinAlias || name == "o200k_base" || (!explicit && IsPlaceholderModel(name))
}

// otherTiktokenEncodings are the tiktoken encoding names AIPerf routes to
// tiktoken rather than to the HuggingFace Hub, other than o200k_base ("gpt2"
// is not among them: it is also a HuggingFace model id).
func otherTiktokenEncodings() []string {
	return []string{"cl100k_base", "o200k_harmony", "p50k_base", "p50k_edit", "r50k_base"}
}

// isOtherTiktokenName reports whether name is a tiktoken encoding that is not
// built in.
func isOtherTiktokenName(name string) bool {
	return slices.Contains(otherTiktokenEncodings(), name)
}

// IsPlaceholderModel reports whether a model name is an obvious placeholder
// such as "mock-model", "test-model", "fake-llama" or "my_model", following
// AIPerf's rule: a path-like name (one containing '/' or '\', or starting
// with '.' or '~') never is; otherwise the name is lower-cased, '_' becomes
// '-', and it matches when it equals one of the bare placeholder words or
// contains one of the hyphenated placeholder markers.
func IsPlaceholderModel(name string) bool {
	if name == "" || strings.ContainsAny(name, `/\`) || name[0] == '.' || name[0] == '~' {
		return false
	}
	norm := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	switch norm {
	case "test", "mock", "fake", "dummy", "example", "sample", "placeholder":
		return true
	}
	for _, marker := range []string{
		"mock-", "-mock", "fake-", "-fake", "test-model", "-test-model",
		"your-model", "my-model", "model-name", "model-id",
	} {
		if strings.Contains(norm, marker) {
			return true
		}
	}
	return false
}
