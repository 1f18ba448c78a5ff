package synthesis

import "testing"

// BenchmarkPromptText builds a 8,000-token prompt of 512-token hash-id
// blocks, the blocks cached (a shared prefix) and not.
func BenchmarkPromptText(b *testing.B) {
	tok := builtinTokenizer(b)
	c, err := newCorpus(tok)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int, 16)
	for i := range ids {
		ids[i] = i
	}
	for _, cached := range []bool{true, false} {
		b.Run(map[bool]string{true: "cached", false: "uncached"}[cached], func(b *testing.B) {
			blocks := newSharedBlocks(tok, c, 1, "t", 512, -1)
			p := &lazyPrompt{blocks: blocks, hashIDs: ids, length: 8000, tail: -1}
			p.Text()
			for b.Loop() {
				if !cached {
					clear(blocks.cache)
					blocks.cached = 0
				}
				p.Text()
			}
		})
	}
}
