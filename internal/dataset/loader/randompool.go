package loader

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// streamRandomPool draws random_pool samples.
const streamRandomPool = "dataset.loader.random_pool"

// randomPool reads a random_pool dataset: a JSONL file of entries, or a
// directory whose files are named pools (e.g. queries.jsonl and
// passages.jsonl). As in AIPerf, each of the Conversations conversations
// is one turn made of one entry drawn (with replacement) from every pool,
// their texts, images, audios and videos concatenated in pool (file name)
// order; the draws are AIPerf's (its generator for the pool, each pool's
// draws in turn), so a seeded run sends AIPerf's requests.
func (l *loader) randomPool() ([]dataset.Conversation, error) {
	files := []string{l.opts.Path}
	if isDir(l.opts.Path) {
		var err error
		if files, err = dirFiles(l.opts.Path); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, &dataset.InputError{File: l.opts.Path, Err: errors.New("the directory holds no files")}
		}
	}
	var pools [][]dataset.Turn
	var p problems
	for _, file := range files {
		var pool []dataset.Turn
		p.eachLine(file, func(_ int, line []byte) error {
			r, err := parseRow(line)
			if err != nil {
				return err
			}
			ts, err := parseTurnRow(r, true)
			if err != nil {
				return err
			}
			if err := resolveTurnMedia(&ts.turn); err != nil {
				return err
			}
			pool = append(pool, ts.turn)
			return nil
		})
		if len(pool) == 0 && len(p.errs) == 0 {
			p.add(&dataset.InputError{File: file, Err: errors.New("the pool is empty")})
		}
		pools = append(pools, pool)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	n := l.opts.Conversations
	if n <= 0 {
		n = DefaultPoolConversations
	}
	// AIPerf's choices(pool, k) on the pool's generator: each draw
	// floor(random() * len).
	py := pyrand.Derive(l.seed, streamRandomPool).Py()
	pick := func(n int) int { return int(py.Random() * float64(n)) }
	if b := l.opts.PoolBatch; b != nil && b.packs(pools) {
		return l.packedPool(files, pools, *b, n, pick)
	}
	convs := make([]dataset.Conversation, n)
	for i := range convs {
		convs[i].ID = l.sessionID()
		convs[i].Turns = []dataset.Turn{{}}
	}
	for _, pool := range pools {
		for i := range convs {
			src := pool[pick(len(pool))]
			t := &convs[i].Turns[0]
			t.Texts = append(t.Texts, src.Texts...)
			t.Images = append(t.Images, src.Images...)
			t.Audios = append(t.Audios, src.Audios...)
			t.Videos = append(t.Videos, src.Videos...)
		}
	}
	l.countTurns(convs)
	return convs, nil
}

// PoolBatch is how many texts, images, audio clips and videos one
// random_pool request packs (-b, --image-batch-size, --audio-batch-size,
// --video-batch-size; 1 each by default, 0 leaves a modality out).
type PoolBatch struct{ Texts, Images, Audios, Videos int }

// packs reports whether the batch sizes change what a pool sends: some
// modality the pool holds has a size other than 1. As in AIPerf, a size
// for a modality no entry has changes nothing (--image-batch-size 0 on a
// text pool keeps the entry-per-request mode).
func (b PoolBatch) packs(pools [][]dataset.Turn) bool {
	has := func(f func(*dataset.Turn) int) bool {
		for _, pool := range pools {
			for i := range pool {
				if f(&pool[i]) > 0 {
					return true
				}
			}
		}
		return false
	}
	return b.Texts != 1 && has(func(t *dataset.Turn) int { return len(t.Texts) }) ||
		b.Images != 1 && has(func(t *dataset.Turn) int { return len(t.Images) }) ||
		b.Audios != 1 && has(func(t *dataset.Turn) int { return len(t.Audios) }) ||
		b.Videos != 1 && has(func(t *dataset.Turn) int { return len(t.Videos) })
}

// packedPool is random_pool with batch sizes, as AIPerf 0.13 packs it:
// every entry's texts, images, audios and videos pooled per modality
// (entry associations are not kept: the modalities are drawn
// independently), and each of n single-turn conversations given that
// many draws with replacement from each pool (images, texts, audio,
// video, in AIPerf's order). Packing loses what names an entry (text
// names, image UUIDs) and what tells several pools apart, so, as in
// AIPerf, a directory of pools and entries with names or UUIDs are
// refused.
func (l *loader) packedPool(files []string, pools [][]dataset.Turn, b PoolBatch, n int, pick func(int) int) ([]dataset.Conversation, error) {
	if len(pools) > 1 {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = filepath.Base(f)
		}
		return nil, &dataset.InputError{File: l.opts.Path, Err: fmt.Errorf("random_pool batch sizes other than 1 need one unnamed pool, found %d (%s): drop the batch-size flags or use a single file", len(pools), strings.Join(names, ", "))}
	}
	var texts, images, audios, videos []string
	for _, t := range pools[0] {
		for _, name := range t.TextNames {
			if name != "" {
				return nil, &dataset.InputError{File: files[0], Field: "texts", Err: fmt.Errorf("random_pool batch sizes other than 1 drop the text name %q: drop the batch-size flags or the names", name)}
			}
		}
		for _, id := range t.ImageUUIDs {
			if id != "" {
				return nil, &dataset.InputError{File: files[0], Field: "images", Err: fmt.Errorf("random_pool batch sizes other than 1 drop the image uuid %q: drop the batch-size flags or the uuids", id)}
			}
		}
		texts, images = append(texts, t.Texts...), append(images, t.Images...)
		audios, videos = append(audios, t.Audios...), append(videos, t.Videos...)
	}
	on := func(pool []string, k int) bool { return len(pool) > 0 && k > 0 }
	if !on(images, b.Images) && !on(texts, b.Texts) && !on(audios, b.Audios) && !on(videos, b.Videos) {
		return nil, &dataset.InputError{File: files[0], Err: fmt.Errorf("random_pool batch sizes leave requests empty: every modality is absent from the pool or has batch size 0 (text=%d, image=%d, audio=%d, video=%d)", b.Texts, b.Images, b.Audios, b.Videos)}
	}
	draw := func(pool []string, k int) []string {
		if !on(pool, k) {
			return nil
		}
		out := make([]string, k)
		for i := range out {
			out[i] = pool[pick(len(pool))]
		}
		return out
	}
	convs := make([]dataset.Conversation, n)
	for i := range convs {
		t := dataset.Turn{}
		t.Images = draw(images, b.Images)
		t.Texts = draw(texts, b.Texts)
		t.Audios = draw(audios, b.Audios)
		t.Videos = draw(videos, b.Videos)
		convs[i] = dataset.Conversation{ID: l.sessionID(), Turns: []dataset.Turn{t}}
	}
	l.countTurns(convs)
	return convs, nil
}
