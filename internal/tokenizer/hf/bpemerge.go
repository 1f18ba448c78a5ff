package hf

// This file holds the BPE merge loop. Two implementations give the same
// result: repeatedly merge the adjacent pair with the lowest rank, the
// leftmost among equals. A short word scans its pairs; a long word uses a
// priority queue keyed by (rank, position) with lazy deletion, as
// HuggingFace's Word::merge_all does, so a huge word stays O(n log n).

// smallWord is the longest word (in initial symbols) merged by scanning.
const smallWord = 48

// noMerge marks a pair without a merge.
var noMerge = bpeMerge{rank: -1, id: -1}

// lookup returns the merge of pair (a, b), or noMerge.
func (m *bpe) lookup(a, b int32) bpeMerge {
	if mg, ok := m.merges[pairKey(a, b)]; ok {
		return mg
	}
	return noMerge
}

// mergeAll merges the symbols of one word (a linked list starting at 0)
// and returns them; the survivors are those reachable from index 0.
func (m *bpe) mergeAll(syms []bpeSymbol) []bpeSymbol {
	switch n := len(syms); {
	case n < 2:
		return syms
	case n <= smallWord:
		m.mergeScan(syms)
	default:
		m.mergeHeap(syms)
	}
	return syms
}

// joinSymbols merges symbol j (the right neighbour of i) into i, which
// becomes id.
func joinSymbols(syms []bpeSymbol, i, j int32, id int32) {
	syms[i].id = id
	syms[i].next = syms[j].next
	if nx := syms[j].next; nx >= 0 {
		syms[nx].prev = i
	}
	syms[j].dead = true
}

// mergeScan is the merge loop for short words: the rank of each live
// symbol's pair with its right neighbour is kept in pair and the lowest is
// found by a left-to-right scan (strict less-than keeps the leftmost).
func (m *bpe) mergeScan(syms []bpeSymbol) {
	var buf [smallWord]bpeMerge
	var pair []bpeMerge
	if len(syms) <= smallWord {
		pair = buf[:len(syms)]
	} else {
		pair = make([]bpeMerge, len(syms))
	}
	for i := 0; i+1 < len(syms); i++ {
		pair[i] = m.lookup(syms[i].id, syms[i+1].id)
	}
	pair[len(syms)-1] = noMerge
	for {
		best := int32(-1)
		bestRank := int32(1<<31 - 1)
		for i := int32(0); i >= 0; i = syms[i].next {
			if r := pair[i].rank; r >= 0 && r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			return
		}
		joinSymbols(syms, best, syms[best].next, pair[best].id)
		if nx := syms[best].next; nx >= 0 {
			pair[best] = m.lookup(syms[best].id, syms[nx].id)
		} else {
			pair[best] = noMerge
		}
		if pv := syms[best].prev; pv >= 0 {
			pair[pv] = m.lookup(syms[pv].id, syms[best].id)
		}
	}
}

// bpeCandidate is a queued merge of the pair starting at pos.
type bpeCandidate struct {
	rank, pos, id int32
}

func (c bpeCandidate) less(d bpeCandidate) bool {
	return c.rank < d.rank || (c.rank == d.rank && c.pos < d.pos)
}

// mergeHeap is the merge loop for long words. A queued candidate is stale
// when its left symbol is dead, has no right neighbour, or the current
// pair there merges into a different token; stale ones are skipped.
func (m *bpe) mergeHeap(syms []bpeSymbol) {
	h := make([]bpeCandidate, 0, len(syms))
	for i := 0; i+1 < len(syms); i++ {
		if mg := m.lookup(syms[i].id, syms[i+1].id); mg.rank >= 0 {
			h = append(h, bpeCandidate{mg.rank, int32(i), mg.id})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	push := func(c bpeCandidate) {
		h = append(h, c)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[i].less(h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	for len(h) > 0 {
		top := h[0]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0)
		s := syms[top.pos]
		if s.dead || s.next < 0 {
			continue
		}
		if cur := m.lookup(s.id, syms[s.next].id); cur.rank < 0 || cur.id != top.id {
			continue
		}
		joinSymbols(syms, top.pos, s.next, top.id)
		cur := syms[top.pos]
		if cur.prev >= 0 {
			if mg := m.lookup(syms[cur.prev].id, cur.id); mg.rank >= 0 {
				push(bpeCandidate{mg.rank, cur.prev, mg.id})
			}
		}
		if cur.next >= 0 {
			if mg := m.lookup(cur.id, syms[cur.next].id); mg.rank >= 0 {
				push(bpeCandidate{mg.rank, top.pos, mg.id})
			}
		}
	}
}

// siftDown restores the heap order below i.
func siftDown(h []bpeCandidate, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			c = r
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
