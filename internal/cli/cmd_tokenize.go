package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// tokenizeOptions are the flags of `aiperf tokenize`.
type tokenizeOptions struct {
	tokenizer, model, revision string
	trustRemoteCode            bool
	file                       string // "" or "-" reads stdin
	ids                        bool
	addSpecialTokens           bool
	applyChatTemplate          bool
}

// newTokenizeCommand builds `aiperf tokenize`, which answers "how many
// tokens is this text for model X?" with the same tokenizer resolution and
// counting rules as `aiperf profile`.
func newTokenizeCommand(env *Env) *cobra.Command {
	var o tokenizeOptions
	cmd := &cobra.Command{
		Use:   "tokenize",
		Short: "Count the tokens of a text with a model's tokenizer",
		Long: `Print how many tokens a text is for a tokenizer, or the token ids with --ids.

The text is read from --file, or from standard input, exactly as given (a
trailing newline is part of it). The tokenizer is resolved as in 'aiperf
profile': --tokenizer (a HuggingFace hub id, a local tokenizer.json or
directory, or "builtin"), else the model name given with -m.

By default no special tokens are added, as AIPerf counts input and output
lengths. --add-special-tokens adds the ones the tokenizer's post-processor
adds (e.g. a BOS token). --apply-chat-template renders the text as one user
message with the tokenizer's chat template and the generation prompt, then
counts that, as HuggingFace apply_chat_template(tokenize=True) does (the
template writes its own special tokens; none are added).

Examples:
  echo -n "Hello, world" | aiperf tokenize --tokenizer Qwen/Qwen3-0.6B
  aiperf tokenize -m meta-llama/Llama-3.1-8B-Instruct --file prompt.txt --apply-chat-template
  aiperf tokenize --tokenizer ./tokenizer.json --file prompt.txt --ids`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTokenize(cmd.OutOrStdout(), env, o)
		},
	}
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringVar(&o.tokenizer, "tokenizer", "", "Tokenizer: a HuggingFace hub id, a local tokenizer.json or directory, or \"builtin\" (tiktoken o200k_base). Defaults to the --model name.")
	fs.StringVarP(&o.model, "model", "m", "", "Model name, used as the tokenizer when --tokenizer is not given.")
	fs.StringVar(&o.revision, "tokenizer-revision", config.DefaultTokenizerRevision, "HuggingFace hub revision (branch, tag or commit) of the tokenizer to download.")
	fs.BoolVar(&o.trustRemoteCode, "tokenizer-trust-remote-code", false, "Accepted for AIPerf compatibility; no remote code ever runs.")
	fs.StringVar(&o.file, "file", "", "Read the text from this file instead of standard input (\"-\" is standard input).")
	fs.BoolVar(&o.ids, "ids", false, "Print the token ids as a JSON array instead of their count.")
	fs.BoolVar(&o.addSpecialTokens, "add-special-tokens", false, "Add the special tokens the tokenizer's post-processor adds (BOS/EOS, [CLS]/[SEP]).")
	fs.BoolVar(&o.applyChatTemplate, "apply-chat-template", false, "Render the text as one user message with the tokenizer's chat template and the generation prompt, and tokenize that.")
	return cmd
}

// runTokenize resolves the tokenizer, reads the text and prints the count
// or the ids. Flag problems are reported together as a usage error; a
// tokenizer that cannot be opened, an unreadable file and a missing chat
// template are errors with exit code 2 too, since the user can fix them.
func runTokenize(w io.Writer, env *Env, o tokenizeOptions) error {
	var problems []error
	if o.tokenizer == "" && o.model == "" {
		problems = append(problems, errors.New("--tokenizer or --model is required"))
	}
	if o.addSpecialTokens && o.applyChatTemplate {
		problems = append(problems, errors.New("--add-special-tokens and --apply-chat-template exclude each other: the chat template writes the special tokens itself"))
	}
	if len(problems) > 0 {
		return &usageError{command: "aiperf tokenize", problems: problems}
	}
	fail := func(err error) error { return &config.ExitError{Code: config.ExitUsage, Err: err} }

	text, err := readTokenizeText(env.Stdin, o.file)
	if err != nil {
		return fail(err)
	}
	res, err := tokenizer.Open(o.tokenizer, o.model, tokenizer.Options{
		Revision: o.revision, TrustRemoteCode: o.trustRemoteCode, Getenv: env.Getenv,
	})
	if err != nil {
		return fail(fmt.Errorf("--tokenizer: %w", err))
	}
	if o.applyChatTemplate {
		if text, err = renderUserMessage(res, text); err != nil {
			return fail(err)
		}
	}
	tok := res.Tokenizer
	var ids []int
	if se, ok := tok.(tokenizer.SpecialEncoder); ok && o.addSpecialTokens {
		ids = se.EncodeWithSpecialTokens(text)
	} else {
		// A tokenizer without a post-processor (the built-in tiktoken
		// encoding) adds no special tokens either way.
		ids = tok.Encode(text)
	}
	if !o.ids {
		_, err = fmt.Fprintln(w, len(ids))
		return err
	}
	if ids == nil {
		ids = []int{}
	}
	out, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

// readTokenizeText reads the whole text from path, or from stdin when path
// is "" or "-".
func readTokenizeText(stdin io.Reader, path string) (string, error) {
	if path == "" || path == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("reading standard input: %w", err)
		}
		return string(b), nil
	}
	b, err := userfile.ReadFile(path) // refuses links and non-regular files
	if err != nil {
		return "", fmt.Errorf("--file: %w", err)
	}
	return string(b), nil
}

// renderUserMessage renders text as the only (user) message of a
// conversation with the tokenizer's chat template and the generation
// prompt.
func renderUserMessage(res *tokenizer.Resolved, text string) (string, error) {
	if len(res.ConfigJSON) == 0 {
		return "", fmt.Errorf("--apply-chat-template: tokenizer %s has no tokenizer_config.json, so no chat template", res.Source)
	}
	cfg, err := chattemplate.ParseConfig(res.ConfigJSON)
	if err != nil {
		return "", fmt.Errorf("--apply-chat-template: %w", err)
	}
	tmpl, err := cfg.Template(false)
	if err != nil {
		return "", fmt.Errorf("--apply-chat-template: tokenizer %s: %w", res.Source, err)
	}
	out, err := tmpl.Render(chattemplate.Input{
		Messages:            []chattemplate.Message{{Role: "user", Content: text}},
		AddGenerationPrompt: true,
	})
	if err != nil {
		return "", fmt.Errorf("--apply-chat-template: %w", err)
	}
	return out, nil
}
