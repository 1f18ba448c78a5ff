package tokenizer

import "unicode/utf8"

// noRank marks a pair of parts that does not merge into a token.
const noRank = ^uint32(0)

// heapMergeMinBytes is the piece length from which merging switches from a
// quadratic scan (fast, allocation-free for the short pieces of ordinary
// text) to a heap (n log n, for long runs such as repeated characters).
const heapMergeMinBytes = 256

// appendPiece appends the ids of one pre-tokenization piece to dst.
func (v *vocabulary) appendPiece(dst []int, piece string) []int {
	if id, ok := v.rank(piece); ok {
		return append(dst, int(id))
	}
	var buf [heapMergeMinBytes + 1]int
	bounds := v.merge(piece, buf[:0])
	for i := range len(bounds) - 1 {
		id, _ := v.rank(piece[bounds[i]:bounds[i+1]])
		dst = append(dst, int(id))
	}
	return dst
}

// countPiece returns the number of tokens of one pre-tokenization piece.
func (v *vocabulary) countPiece(piece string) int {
	if _, ok := v.rank(piece); ok {
		return 1
	}
	var buf [heapMergeMinBytes + 1]int
	return len(v.merge(piece, buf[:0])) - 1
}

// merge byte-pair encodes piece: starting from single bytes, it repeatedly
// merges the adjacent pair whose concatenation has the lowest rank (the
// leftmost on ties) until no pair is a token. It returns the byte offsets of
// the resulting tokens' boundaries, 0 and len(piece) included, appended to
// dst.
func (v *vocabulary) merge(piece string, dst []int) []int {
	if len(piece) >= heapMergeMinBytes {
		return v.mergeHeap(piece, dst)
	}
	return v.mergeScan(piece, dst)
}

// mergeScan is merge for short pieces. bounds[i] is the start of part i;
// ranks[i] is the rank of parts i and i+1 merged.
func (v *vocabulary) mergeScan(piece string, bounds []int) []int {
	var rankBuf [heapMergeMinBytes]uint32
	ranks := rankBuf[:0]
	for i := range len(piece) + 1 {
		bounds = append(bounds, i)
	}
	pairRank := func(i int) uint32 {
		if i+2 >= len(bounds) {
			return noRank
		}
		if r, ok := v.rank(piece[bounds[i]:bounds[i+2]]); ok {
			return r
		}
		return noRank
	}
	for i := range len(bounds) - 1 {
		ranks = append(ranks, pairRank(i))
	}
	for {
		best, at := noRank, -1
		for i, r := range ranks {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			return bounds
		}
		// Merge parts at and at+1 by dropping the boundary between them.
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pairRank(at)
		if at > 0 {
			ranks[at-1] = pairRank(at - 1)
		}
	}
}

// mergeHeap is merge for long pieces, in O(n log n): parts form a linked
// list and candidate merges wait in a min-heap ordered by (rank, offset).
// Candidates made stale by a neighbouring merge are skipped when popped.
func (v *vocabulary) mergeHeap(piece string, dst []int) []int {
	n := len(piece)
	next := make([]int, n+1) // next[i]: start of the part after the one at i; -1 at the end
	prev := make([]int, n+1)
	rank := make([]uint32, n+1) // rank[i]: rank of the part at i merged with its successor
	for i := range n + 1 {
		next[i], prev[i], rank[i] = i+1, i-1, noRank
	}
	next[n] = -1
	pairRank := func(i int) uint32 {
		j := next[i]
		if j < 0 || next[j] < 0 {
			return noRank
		}
		if r, ok := v.rank(piece[i:next[j]]); ok {
			return r
		}
		return noRank
	}
	h := mergeHeap{}
	for i := range n - 1 {
		if rank[i] = pairRank(i); rank[i] != noRank {
			h.push(mergeCandidate{rank[i], i})
		}
	}
	for len(h) > 0 {
		c := h.pop()
		if rank[c.at] != c.rank || (c.at != 0 && prev[c.at] < 0) {
			continue // stale
		}
		gone := next[c.at]
		next[c.at] = next[gone]
		if next[gone] >= 0 {
			prev[next[gone]] = c.at
		}
		prev[gone], rank[gone] = -1, noRank
		for _, i := range [2]int{c.at, prev[c.at]} {
			if i < 0 {
				continue
			}
			if rank[i] = pairRank(i); rank[i] != noRank {
				h.push(mergeCandidate{rank[i], i})
			}
		}
	}
	for i := 0; i >= 0; i = next[i] {
		dst = append(dst, i)
	}
	return dst
}

// mergeCandidate is a possible merge of the part starting at byte at with
// its successor.
type mergeCandidate struct {
	rank uint32
	at   int
}

// mergeHeap is a binary min-heap of candidates, lowest rank first, then
// leftmost.
type mergeHeap []mergeCandidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].at < h[b].at
}

func (h *mergeHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *mergeHeap) pop() mergeCandidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	*h = s
	for i := 0; ; {
		child := 2*i + 1
		if child >= len(s) {
			break
		}
		if child+1 < len(s) && s.less(child+1, child) {
			child++
		}
		if !s.less(child, i) {
			break
		}
		s[i], s[child] = s[child], s[i]
		i = child
	}
	return top
}

// toValidUTF8 returns s with each maximal invalid UTF-8 subsequence replaced
// by one U+FFFD, as Python's bytes.decode(errors="replace") does (and so as
// tiktoken's decode does). Valid input is returned as is, without copying.
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n != 1 {
			out = append(out, s[i:i+n]...)
			i += n
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += invalidPrefixLen(s[i:])
	}
	return string(out)
}

// invalidPrefixLen returns the length of the maximal subpart at the start of
// s, which does not start with a valid sequence: the longest prefix of some
// well-formed sequence, or 1 when the first byte cannot start one (Unicode's
// "U+FFFD substitution of maximal subparts").
func invalidPrefixLen(s string) int {
	var need int
	lo, hi := byte(0x80), byte(0xBF) // range of the second byte
	switch b := s[0]; {
	case 0xC2 <= b && b <= 0xDF:
		need = 1
	case b == 0xE0:
		need, lo = 2, 0xA0
	case 0xE1 <= b && b <= 0xEC, b == 0xEE, b == 0xEF:
		need = 2
	case b == 0xED:
		need, hi = 2, 0x9F
	case b == 0xF0:
		need, lo = 3, 0x90
	case 0xF1 <= b && b <= 0xF3:
		need = 3
	case b == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(s); n++ {
		b := s[n]
		if n == 1 && (b < lo || b > hi) || n > 1 && (b < 0x80 || b > 0xBF) {
			break
		}
	}
	return n
}
