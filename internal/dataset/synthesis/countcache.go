package synthesis

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// A tokenizer's per-chunk token counts of the corpus are what a synthetic
// run needs before its first prompt (every window's position depends on
// all of them: AIPerf's corpus_size). The builtin tokenizer's ship with the
// binary; for any other tokenizer computing them means tokenizing the whole
// corpus, about half a second of CPU with a HuggingFace tokenizer. So they
// are cached on disk, one small file per tokenizer, and a later run with the
// same tokenizer only tokenizes the chunks its prompts touch.
//
// A cache file is keyed by the tokenizer's Fingerprint (what it encodes
// with) and the identity of the running executable (path, size and
// modification time), which also stands for the embedded corpus and the
// tokenizer code: a rebuilt binary never reads counts an older build
// wrote, so a change in either cannot make a run read wrong counts. The
// cache is best effort: a file that is missing, unreadable or malformed is
// recomputed, and a directory that cannot be written is skipped.

// CountCacheEnv names the environment variable that sets the directory of
// the corpus count cache ("off" disables it). By default it is
// aiperf-go/corpus-counts under the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux).
const CountCacheEnv = "AIPERF_CORPUS_COUNT_CACHE"

// fingerprinter is a tokenizer whose encodings follow entirely from data
// with a stable digest (HuggingFace tokenizer.json ones).
type fingerprinter interface {
	Fingerprint() string
}

// countCache is where cached counts live; a variable so tests use their
// own directory.
var countCache = countCacheFromEnv

// countCacheFromEnv returns the cache directory, or "" when caching is off
// or there is no user cache directory.
func countCacheFromEnv() string {
	switch dir := environ.Getenv(CountCacheEnv); dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "aiperf-go", "corpus-counts")
	default:
		return dir
	}
}

// executableID identifies the running binary: its path, size and
// modification time; "" when they cannot be read (then nothing is cached).
var executableID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano())
})

// countCachePath returns the cache file for tok's counts of n chunks, or
// "" when tok's counts are not cached.
func countCachePath(tok tokenizer.Tokenizer, n int) string {
	fp, ok := tok.(fingerprinter)
	if !ok {
		return ""
	}
	dir, exe := countCache(), executableID()
	if dir == "" || exe == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(fp.Fingerprint() + "\x00" + exe + "\x00" + strconv.Itoa(n)))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".counts")
}

// cachedCounts returns tok's cached counts for the n chunks, or nil.
func cachedCounts(path string, n int) []int {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	counts, err := parseChunkCounts(string(data), n)
	if err != nil {
		return nil
	}
	return counts
}

// storeCounts writes counts to path atomically (a temporary file renamed
// into place), so a concurrent run reads either nothing or all of them.
// Failures are ignored: the cache only saves time.
func storeCounts(path string, counts []int) {
	if path == "" {
		return
	}
	var b strings.Builder
	for _, c := range counts {
		b.WriteString(strconv.Itoa(c))
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".counts-*")
	if err != nil {
		return
	}
	_, werr := f.WriteString(b.String())
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		_ = os.Remove(f.Name())
	}
}
