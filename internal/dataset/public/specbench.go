package public

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// Where Spec-Bench's questions come from (a pinned commit of the
// project's repository) and where AIPerf caches them, relative to the
// working directory.
const (
	SpecBenchURL   = "https://raw.githubusercontent.com/hemingkx/Spec-Bench/fd2c1cd7d2201ef71db4c5f4e455008f017967bf/data/spec_bench/question.jsonl"
	SpecBenchCache = ".cache/aiperf/datasets/spec_bench.jsonl"
)

// maxSpecBenchBytes bounds the download (the file is about 500 KB).
const maxSpecBenchBytes = 64 << 20

// specBench reads Spec-Bench's JSONL: one conversation per question, its
// first turn only, from the cache file, downloaded there when missing
// (not in offline mode).
func (l *loading) specBench(ctx context.Context) ([]dataset.Conversation, error) {
	path := l.o.SpecBenchCache
	if path == "" {
		path = SpecBenchCache
		if dir := l.o.Getenv("AIPERF_DATASET_CACHE_DIR"); dir != "" {
			path = filepath.Join(dir, filepath.Base(SpecBenchCache))
		}
	}
	if _, err := os.Stat(path); err != nil {
		if hub.IsTrue(l.o.Getenv("HF_HUB_OFFLINE")) {
			return nil, fmt.Errorf("%s is not cached and HF_HUB_OFFLINE is set", path)
		}
		url := l.o.SpecBenchURL
		if url == "" {
			url = SpecBenchURL
		}
		if err := download(ctx, l.o.HTTP, url, path); err != nil {
			return nil, err
		}
	}
	var convs []dataset.Conversation
	err := hfdata.ReadRows(hfdata.FormatJSON, []string{path}, func(r hfdata.Row) error {
		turns, ok := r["turns"].([]any)
		if !ok || len(turns) == 0 || turns[0] == nil || isEmptyValue(turns[0]) {
			return nil
		}
		prompt := strings.TrimSpace(pyStr(turns[0]))
		if prompt == "" {
			return nil
		}
		convs = append(convs, dataset.Conversation{ID: l.ids.Next(), Turns: []dataset.Turn{{Texts: []string{prompt}}}})
		return nil
	})
	return convs, err
}

// download fetches url into path through a temporary file.
func download(ctx context.Context, hc *http.Client, url, path string) error {
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: HTTP %d", url, resp.StatusCode)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, maxSpecBenchBytes+1))
	if err == nil && n > maxSpecBenchBytes {
		err = errors.New("the file is larger than expected")
	}
	if err := errors.Join(err, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	return os.Rename(tmp.Name(), path)
}
