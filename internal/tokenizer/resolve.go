package tokenizer

import (
	"errors"
	"fmt"
	"strings"
)

// BuiltinAlias is the --tokenizer value that selects the built-in tokenizer.
const BuiltinAlias = "builtin"

// Resolve returns the tokenizer AIPerf would use for --tokenizer name and
// --model model.
//
// An empty name means "the model's own tokenizer", so model is resolved in
// its place. "builtin" and "o200k_base" select Builtin. When --tokenizer was
// not given and the model name is an obvious placeholder ("mock-model",
// "test-model", "fake-llama", ...; see IsPlaceholderModel), AIPerf
// substitutes the built-in tokenizer instead of looking the name up on the
// HuggingFace Hub, and so does Resolve. An explicit --tokenizer is never
// treated as a placeholder. Any other name is a HuggingFace Hub id or a local
// path; those are not supported yet and return an error that says so.
func Resolve(name, model string) (Tokenizer, error) {
	explicit := name != ""
	if !explicit {
		name = model
	}
	if name == "" {
		return nil, errors.New("no tokenizer: neither --tokenizer nor --model names one")
	}
	for _, s := range sources() {
		if s.accepts(name, explicit) {
			tok, err := s.open(name)
			if err != nil {
				return nil, fmt.Errorf("tokenizer %q: %w", name, err)
			}
			return tok, nil
		}
	}
	// The last source accepts every name, so this is unreachable.
	return nil, fmt.Errorf("tokenizer %q: no source accepts this name", name)
}

// source is one kind of tokenizer Resolve can open. Sources are tried in
// order; the first whose accepts returns true opens the name.
type source struct {
	// accepts reports whether this source owns name. explicit is true when
	// the name came from --tokenizer rather than from --model.
	accepts func(name string, explicit bool) bool
	// open loads the tokenizer; its error is wrapped with the name.
	open func(name string) (Tokenizer, error)
}

// sources lists the tokenizer sources in the order Resolve tries them. The
// HuggingFace source comes last and accepts every remaining name; a reader
// for tokenizer.json files replaces its open function.
func sources() []source {
	return []source{
		{accepts: isBuiltinName, open: func(string) (Tokenizer, error) { return Builtin() }},
		{accepts: isOtherTiktokenName, open: openOtherTiktoken},
		{accepts: func(string, bool) bool { return true }, open: openHuggingFace},
	}
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
func isOtherTiktokenName(name string, _ bool) bool {
	for _, enc := range otherTiktokenEncodings() {
		if name == enc {
			return true
		}
	}
	return false
}

// openOtherTiktoken rejects tiktoken encodings other than o200k_base.
func openOtherTiktoken(string) (Tokenizer, error) {
	return nil, errors.New("only the o200k_base tiktoken encoding is built in; use --tokenizer builtin (tiktoken o200k_base)")
}

// openHuggingFace will load a HuggingFace tokenizer.json from the local
// cache or a path. It is not implemented yet.
func openHuggingFace(string) (Tokenizer, error) {
	return nil, errors.New("HuggingFace tokenizer.json support is not available yet; use --tokenizer builtin (tiktoken o200k_base)")
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
