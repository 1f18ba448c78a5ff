package tokenizer

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hf"
)

// Options are the settings that choose and fetch a tokenizer besides its
// name: AIPerf's --tokenizer-revision and --tokenizer-trust-remote-code, and
// the HuggingFace hub environment.
type Options struct {
	// Revision is the hub revision (branch, tag or commit); "" means "main".
	// Local paths and the built-in tokenizer ignore it.
	Revision string
	// TrustRemoteCode is accepted for AIPerf compatibility. No remote code
	// ever runs: a tokenizer.json is data.
	TrustRemoteCode bool
	// Getenv reads HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN,
	// HF_HUB_OFFLINE and HOME; nil means environ.Getenv. Tests pass their own.
	Getenv func(string) string
	// Client fetches from the hub; nil means a client with sane timeouts.
	Client *http.Client
	// Logger receives debug notes and warnings (a stale cached revision
	// used because the hub was unreachable, a missing
	// tokenizer_config.json); nil discards them. The hub token is never
	// logged.
	Logger *slog.Logger
}

// Resolved is an opened tokenizer and what came with it.
type Resolved struct {
	// Tokenizer encodes and counts.
	Tokenizer Tokenizer
	// ConfigJSON is the raw tokenizer_config.json that sits next to the
	// tokenizer.json (chat template, bos/eos tokens), or nil when there is
	// none (the built-in tokenizer, a lone tokenizer.json file, a repo
	// without one).
	ConfigJSON []byte
	// Source says where the tokenizer came from, for logs and the summary:
	// "builtin", a local path, or the hub id, revision and cache path.
	Source string
}

// SpecialEncoder is implemented by tokenizers that can add the special
// tokens a model's post-processor adds (BOS/EOS, [CLS]/[SEP]). Counting
// never uses it; `aiperf tokenize --add-special-tokens` does.
type SpecialEncoder interface {
	EncodeWithSpecialTokens(text string) []int
}

// The tokenizer.json reader provides both interfaces.
var (
	_ Tokenizer      = (*hf.Tokenizer)(nil)
	_ SpecialEncoder = (*hf.Tokenizer)(nil)
)

// File names in a tokenizer directory or hub repository.
const (
	tokenizerFile       = "tokenizer.json"
	tokenizerConfigFile = "tokenizer_config.json"
)

// Open resolves --tokenizer name (or, when empty, --model model) to a
// tokenizer, as AIPerf does, trying in order:
//
//  1. "builtin" and "o200k_base", and placeholder model names when
//     --tokenizer was not given (see Resolve): the built-in o200k_base;
//  2. an existing local path: a file is read as a tokenizer.json, a
//     directory must hold one; either way a tokenizer_config.json beside
//     it is returned as ConfigJSON. A name that looks like a path (it
//     starts with '/', '.' or '~') but does not exist is an error, never
//     a hub lookup;
//  3. a hub repository id ("org/name", or a legacy "name") at
//     opts.Revision: tokenizer.json and tokenizer_config.json come from
//     the HuggingFace hub cache, downloaded first when needed (see
//     package hub for the cache, HF_* variables and offline mode).
//
// Only fast tokenizers (tokenizer.json) are supported; a repository or
// directory with only a SentencePiece tokenizer.model is an error that
// says how to convert it. Errors name the tokenizer and say what was
// tried.
func Open(name, model string, opts Options) (*Resolved, error) {
	return open(name, model, opts, parseTokenizerJSON)
}

// parseFunc builds a tokenizer from tokenizer.json bytes; name is what the
// tokenizer's Name returns. Tests substitute their own to see what Open
// hands the parser.
type parseFunc func(name string, data []byte) (Tokenizer, error)

// parseTokenizerJSON is the production parseFunc.
func parseTokenizerJSON(name string, data []byte) (Tokenizer, error) {
	t, err := hf.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// open is Open with a replaceable parser.
func open(name, model string, opts Options, parse parseFunc) (*Resolved, error) {
	explicit := name != ""
	if !explicit {
		name = model
	}
	if name == "" {
		return nil, errors.New("no tokenizer: neither --tokenizer nor --model names one")
	}
	if opts.Getenv == nil {
		opts.Getenv = environ.Getenv
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}

	switch {
	case isBuiltinName(name, explicit):
		tok, err := Builtin()
		if err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
		return &Resolved{Tokenizer: tok, Source: BuiltinAlias}, nil
	case isOtherTiktokenName(name):
		return nil, fmt.Errorf("tokenizer %q: only the o200k_base tiktoken encoding is built in; use --tokenizer builtin (tiktoken o200k_base)", name)
	}
	if opts.TrustRemoteCode {
		log.Debug("--tokenizer-trust-remote-code has no effect here: tokenizer.json is read as data and no code from the repository is ever run", "tokenizer", name)
	}

	path := expandHome(name, opts.Getenv)
	st, statErr := os.Stat(path)
	switch {
	case statErr == nil:
		res, err := openLocal(name, path, st.IsDir(), parse)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
		return res, nil
	case looksLikePath(name):
		return nil, fmt.Errorf("tokenizer %q: not a usable local path (%w); pass a tokenizer.json, a directory holding one, or a hub id such as org/name", name, statErr)
	}
	res, err := openHub(name, opts, log, parse)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	return res, nil
}

// looksLikePath reports whether name can only be meant as a local path: it
// starts with '/', '.' or '~' (a hub id never does), or holds a backslash.
func looksLikePath(name string) bool {
	return strings.HasPrefix(name, "/") || strings.HasPrefix(name, ".") ||
		strings.HasPrefix(name, "~") || strings.Contains(name, `\`) || filepath.IsAbs(name)
}

// expandHome replaces a leading "~" or "~/" with the home directory, for a
// --tokenizer value the shell did not expand (quoted, or from a file).
func expandHome(p string, getenv func(string) string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		home = h
	}
	return home + p[1:]
}

// openLocal loads a tokenizer.json file, or the one in directory path,
// with the tokenizer_config.json beside it when there is one. name is the
// path as given, used as the tokenizer's Name.
func openLocal(name, path string, isDir bool, parse parseFunc) (*Resolved, error) {
	file, dir := path, filepath.Dir(path)
	if isDir {
		file, dir = filepath.Join(path, tokenizerFile), path
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("directory %s has no %s%s", path, tokenizerFile, slowTokenizerHint(dir))
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	tok, err := parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	res := &Resolved{Tokenizer: tok, Source: "local " + file}
	cfg := filepath.Join(dir, tokenizerConfigFile)
	if cfg != file {
		switch data, err := os.ReadFile(cfg); {
		case err == nil:
			res.ConfigJSON = data
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("reading %s: %w", cfg, err)
		}
	}
	return res, nil
}

// slowTokenizerHint explains a directory without tokenizer.json: when it
// holds the files of a slow tokenizer, that those are not supported and
// how to convert them.
func slowTokenizerHint(dir string) string {
	for _, f := range []string{"tokenizer.model", "vocab.json", "vocab.txt", "spiece.model", "sentencepiece.bpe.model"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return fmt.Sprintf(" (it has %s: slow/SentencePiece tokenizers are not supported; %s)", f, convertHint)
		}
	}
	return ""
}

// convertHint says how to turn a slow tokenizer into a tokenizer.json.
const convertHint = "convert it once with Python transformers: " +
	"AutoTokenizer.from_pretrained(<model>).save_pretrained(<dir>), then pass --tokenizer <dir>"
