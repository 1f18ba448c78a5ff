package loader

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRandomPoolPacking: with batch sizes, random_pool pools every
// entry's texts and images per modality and packs each request with that
// many independent draws, as AIPerf 0.13 does; what packing would lose
// (several pools, text names, image UUIDs) and batches that leave every
// request empty are refused, naming the file.
func TestRandomPoolPacking(t *testing.T) {
	t.Parallel()
	pool := writeFile(t, "p.jsonl", `{"text":"a","image":"https://x/1.png"}`+"\n"+`{"texts":["b","c"]}`+"\n"+`{"text":"d","image":"https://x/2.png"}`+"\n")
	tok := builtinTok(t)
	load := func(path string, b *PoolBatch) (*Loaded, error) {
		return Load(LoadOptions{Path: path, Type: TypeRandomPool, Conversations: 20, PoolBatch: b, Seed: 3, SeedSet: true}, tok)
	}
	l, err := load(pool, &PoolBatch{Texts: 3, Images: 2, Audios: 1, Videos: 1})
	if err != nil {
		t.Fatal(err)
	}
	texts, images := map[string]bool{}, map[string]bool{}
	for _, c := range l.Dataset.Conversations {
		tu := c.Turns[0]
		if len(c.Turns) != 1 || len(tu.Texts) != 3 || len(tu.Images) != 2 || len(tu.Audios) != 0 {
			t.Fatalf("turn %+v; want 3 texts and 2 images", tu)
		}
		for _, s := range tu.Texts {
			texts[s] = true
		}
		for _, s := range tu.Images {
			images[s] = true
		}
		if tu.InputTokens < 3 {
			t.Errorf("InputTokens %d for %q", tu.InputTokens, tu.Texts)
		}
	}
	for s := range texts {
		if !slices.Contains([]string{"a", "b", "c", "d"}, s) {
			t.Errorf("text %q is from no entry", s)
		}
	}
	if len(texts) < 3 || len(images) != 2 {
		t.Errorf("drew texts %v, images %v from the whole pool", texts, images)
	}
	l, err = load(pool, &PoolBatch{Texts: 0, Images: 1, Audios: 1, Videos: 1})
	if err != nil || len(l.Dataset.Conversations[0].Turns[0].Texts) != 0 || len(l.Dataset.Conversations[0].Turns[0].Images) != 1 {
		t.Errorf("-b 0: %v %+v; want images only", err, l.Dataset.Conversations[0].Turns[0])
	}
	// A size for a modality no entry has is no packing: one entry per
	// request, texts and image kept together.
	textOnly := writeFile(t, "t.jsonl", `{"texts":["x","y"]}`+"\n")
	l, err = load(textOnly, &PoolBatch{Texts: 1, Images: 0, Audios: 1, Videos: 1})
	if err != nil || strings.Join(l.Dataset.Conversations[0].Turns[0].Texts, ",") != "x,y" {
		t.Errorf("--image-batch-size 0 on a text pool: %v %+v", err, l.Dataset.Conversations[0].Turns[0])
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(`{"text":"q"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "passages.jsonl"), []byte(`{"text":"p"}`+"\n"), 0o644)
	named := writeFile(t, "n.jsonl", `{"texts":[{"name":"query","contents":["q"]}]}`+"\n")
	uuids := writeFile(t, "u.jsonl", `{"images":[{"contents":["https://x/1.png"],"uuids":["u1"]}]}`+"\n")
	for _, c := range []struct {
		path string
		b    PoolBatch
		want string
	}{
		{dir, PoolBatch{Texts: 2, Images: 1, Audios: 1, Videos: 1}, "need one unnamed pool, found 2 (passages.jsonl, queries.jsonl)"},
		{named, PoolBatch{Texts: 2, Images: 1, Audios: 1, Videos: 1}, `n.jsonl: texts: random_pool batch sizes other than 1 drop the text name "query"`},
		{uuids, PoolBatch{Texts: 1, Images: 2, Audios: 1, Videos: 1}, `images: random_pool batch sizes other than 1 drop the image uuid "u1"`},
		{pool, PoolBatch{Texts: 0, Images: 0, Audios: 5, Videos: 1}, "leave requests empty"},
	} {
		if _, err := load(c.path, &c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v; want %q", filepath.Base(c.path), c.b, err, c.want)
		}
	}
}
