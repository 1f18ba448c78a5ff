package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// openHub loads repo's tokenizer.json (required) and tokenizer_config.json
// (optional) at opts.Revision through the hub cache.
func openHub(repo string, opts Options, log *slog.Logger, parse parseFunc) (*Resolved, error) {
	if _, err := hub.ParseRepoID(repo); err != nil {
		return nil, fmt.Errorf("not an existing local path, nor a hub repository id: %w", err)
	}
	client := hub.FromEnv(opts.Getenv, opts.Client)
	rev := opts.Revision
	if rev == "" {
		rev = hub.DefaultRevision
	}
	ctx := context.Background()

	tf, err := client.Download(ctx, repo, rev, tokenizerFile)
	if err != nil {
		return nil, explainHubError(err, repo, rev, client)
	}
	if tf.Fallback != nil {
		log.Warn("could not ask the hub for the latest revision; using the cached one", "tokenizer", repo,
			"revision", rev, "commit", tf.Commit, "reason", tf.Fallback)
	}
	data, err := os.ReadFile(tf.Path)
	if err != nil {
		return nil, fmt.Errorf("reading the cached %s: %w", tf.Path, err)
	}
	tok, err := parse(repo, data)
	if err != nil {
		return nil, fmt.Errorf("reading %s of %s (revision %s): %w", tokenizerFile, repo, rev, err)
	}
	res := &Resolved{
		Tokenizer: tok,
		Source:    fmt.Sprintf("hub %s (revision %s, commit %s, cached in %s)", repo, rev, tf.Commit, filepath.Dir(tf.Path)),
	}

	// The config is taken from the same commit as the tokenizer, which also
	// spares a request once it is cached.
	cf, err := client.Download(ctx, repo, tf.Commit, tokenizerConfigFile)
	switch {
	case err == nil:
		if res.ConfigJSON, err = os.ReadFile(cf.Path); err != nil {
			return nil, fmt.Errorf("reading the cached %s: %w", cf.Path, err)
		}
	case errors.Is(err, hub.ErrEntryNotFound):
		log.Debug("the repository has no tokenizer_config.json (no chat template)", "tokenizer", repo, "commit", tf.Commit)
	default:
		log.Warn("tokenizer_config.json unavailable; the chat template and special-token settings will be missing",
			"tokenizer", repo, "commit", tf.Commit, "reason", err)
	}
	return res, nil
}

// explainHubError adds to a failed tokenizer.json download what it means
// for the user and what to do: the repository has no fast tokenizer, the
// name is neither a path nor a repository, or how to work offline.
func explainHubError(err error, repo, rev string, client *hub.Client) error {
	download := fmt.Sprintf("huggingface-cli download %s %s %s", repo, tokenizerFile, tokenizerConfigFile)
	if rev != hub.DefaultRevision {
		download += " --revision " + rev
	}
	switch {
	case errors.Is(err, hub.ErrEntryNotFound):
		return fmt.Errorf("%w\nthe repository has no %s at revision %s, and slow/SentencePiece-only tokenizers (tokenizer.model) are not supported; "+
			"pass --tokenizer with a repository or local directory that has a %s, or %s", err, tokenizerFile, rev, tokenizerFile, convertHint)
	case errors.Is(err, hub.ErrRepoNotFound), errors.Is(err, hub.ErrRevisionNotFound):
		return fmt.Errorf("%w\ncheck the repository id and --tokenizer-revision, or pass --tokenizer /path/to/dir with a %s", err, tokenizerFile)
	case errors.Is(err, hub.ErrNotCached):
		return fmt.Errorf("%w\nto fill the cache %s, run once without HF_HUB_OFFLINE or run `%s` with the same HF_HOME/HF_HUB_CACHE; or pass --tokenizer /path/to/dir with a %s",
			err, client.CacheDir, download, tokenizerFile)
	}
	return fmt.Errorf("%w\nto work offline: fill the cache once with `%s`, then set HF_HUB_OFFLINE=1; or pass --tokenizer /path/to/dir with a %s",
		err, download, tokenizerFile)
}
