package hf

import (
	"hash/maphash"
	"strings"
	"sync"
)

// wordCache remembers the ids of words the model has tokenized. Prompts
// repeat words constantly, so most words skip the merge loop. It is
// sharded by hash, each shard behind its own lock, so concurrent encoders
// rarely contend; a full shard is emptied and refilled, which bounds the
// memory without any bookkeeping.
type wordCache struct {
	seed   maphash.Seed
	shards [cacheShards]cacheShard
}

const (
	cacheShards   = 64
	shardCapacity = 4096
)

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int32
}

func newWordCache() *wordCache {
	return &wordCache{seed: maphash.MakeSeed()}
}

func (c *wordCache) shard(w string) *cacheShard {
	return &c.shards[maphash.String(c.seed, w)%cacheShards]
}

// get returns the cached ids of w; the slice must not be modified.
func (c *wordCache) get(w string) ([]int32, bool) {
	s := c.shard(w)
	s.mu.RLock()
	ids, ok := s.m[w]
	s.mu.RUnlock()
	return ids, ok
}

// put caches ids for w. The key is copied so the cache never pins a
// caller's (possibly huge) input string.
func (c *wordCache) put(w string, ids []int32) {
	s := c.shard(w)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= shardCapacity {
		s.m = make(map[string][]int32, 64)
	}
	s.m[strings.Clone(w)] = ids
	s.mu.Unlock()
}
