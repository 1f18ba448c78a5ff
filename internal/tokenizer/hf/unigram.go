package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// unkPenalty is how much lower than the lowest vocabulary score an unknown
// character scores in the Viterbi search (SentencePiece's kUnkPenalty).
const unkPenalty = 10.0

// unigram is the "Unigram" model (SentencePiece, T5/XLM-R style): a word
// is cut into the sequence of vocabulary pieces with the highest total
// score (Viterbi). A character no piece covers scores min-score minus
// unkPenalty as unk; consecutive unknown characters fuse into one unk
// piece, which byte_fallback turns into <0xXX> pieces when they all exist.
type unigram struct {
	pieces       []string
	scores       []float64
	ids          map[string]int
	trie         byteTrie
	unkID        int
	unkScore     float64
	byteFallback bool
}

type unigramSpec struct {
	Type         string            `json:"type"`
	UnkID        *int              `json:"unk_id"`
	Vocab        []json.RawMessage `json:"vocab"`
	ByteFallback bool              `json:"byte_fallback"`
}

func newUnigram(path string, raw json.RawMessage) (model, error) {
	var spec unigramSpec
	if err := decodeStrict(path, "Unigram", raw, &spec); err != nil {
		return nil, err
	}
	if spec.Vocab == nil {
		return nil, fmt.Errorf("%s.vocab: missing", path)
	}
	m := &unigram{
		pieces:       make([]string, len(spec.Vocab)),
		scores:       make([]float64, len(spec.Vocab)),
		ids:          make(map[string]int, len(spec.Vocab)),
		byteFallback: spec.ByteFallback,
	}
	var errs []error
	minScore := math.Inf(1)
	for i, entry := range spec.Vocab {
		var pair [2]json.RawMessage
		var piece string
		var score float64
		err := json.Unmarshal(entry, &pair)
		if err == nil {
			err = json.Unmarshal(pair[0], &piece)
		}
		if err == nil {
			// Scores are read as the reference reads them (see
			// parseSerdeFloat): their last bit decides Viterbi ties.
			score, err = parseSerdeFloat(string(bytes.TrimSpace(pair[1])))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.vocab[%d]: want [piece, score]: %w", path, i, err))
			continue
		}
		m.pieces[i], m.scores[i] = piece, score
		m.ids[piece] = i // a duplicate piece resolves to its last id, as in the reference
		minScore = min(minScore, score)
	}
	switch {
	case spec.UnkID == nil:
		// The reference fails at encode time on the first unknown
		// character; refusing the file is the exact equivalent we can give.
		errs = append(errs, fmt.Errorf("%s.unk_id: null is not supported", path))
	case len(spec.Vocab) == 0:
		errs = append(errs, fmt.Errorf("%s.vocab: empty, but at least the unk piece is needed", path))
	case *spec.UnkID < 0 || *spec.UnkID >= len(spec.Vocab):
		errs = append(errs, fmt.Errorf("%s.unk_id: %d is outside the vocabulary (size %d)", path, *spec.UnkID, len(spec.Vocab)))
	default:
		m.unkID = *spec.UnkID
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m.unkScore = minScore - unkPenalty
	m.trie = buildByteTrie(m.pieces, m.ids)
	return m, nil
}

// bestPath is the best-scoring segmentation of a word's prefix that ends
// at one byte offset: its score, where its last piece starts and that
// piece's id.
type bestPath struct {
	score float64
	start int // -1: no path ends here yet
	id    int
}

// tokenize is the reference's Viterbi pass, tie-breaking included: nodes
// are visited by start offset, pieces at one start by increasing length,
// the unk candidate last, and a later candidate replaces the best path to
// an offset only when its score is strictly higher.
func (m *unigram) tokenize(dst []int, w string) []int {
	if w == "" {
		return dst
	}
	var stack [64]bestPath
	var best []bestPath
	if len(w)+1 <= len(stack) {
		best = stack[:len(w)+1]
	} else {
		best = make([]bestPath, len(w)+1)
	}
	for i := range best {
		best[i] = bestPath{start: -1}
	}
	best[0].start = 0 // score 0, never read as a node
	for start := 0; start < len(w); {
		_, mblen := utf8.DecodeRuneInString(w[start:])
		here := best[start].score
		single := false
		m.trie.prefixes(w[start:], func(n, id int) {
			end := start + n
			cand := m.scores[id] + here
			if t := &best[end]; t.start < 0 || cand > t.score {
				*t = bestPath{score: cand, start: start, id: id}
			}
			if n == mblen {
				single = true
			}
		})
		if !single {
			cand := m.unkScore + here
			if t := &best[start+mblen]; t.start < 0 || cand > t.score {
				*t = bestPath{score: cand, start: start, id: m.unkID}
			}
		}
		start += mblen
	}
	// Walk back from the end, fusing runs of unknown pieces, then emit in
	// order.
	var segs [32][2]int
	pieces := segs[:0]
	for end := len(w); end > 0; {
		n := best[end]
		if n.id == m.unkID && len(pieces) > 0 && pieces[len(pieces)-1][1] < 0 {
			pieces[len(pieces)-1][0] = n.start
		} else if n.id == m.unkID {
			pieces = append(pieces, [2]int{n.start, -end - 1})
		} else {
			pieces = append(pieces, [2]int{n.start, end})
		}
		end = n.start
	}
	for i := len(pieces) - 1; i >= 0; i-- {
		p := pieces[i]
		if p[1] >= 0 {
			dst = append(dst, best[p[1]].id)
			continue
		}
		dst = m.appendPiece(dst, w[p[0]:-p[1]-1])
	}
	return dst
}

// appendPiece appends the id of a (fused unknown) piece: its own id when
// it is in the vocabulary, else its <0xXX> byte pieces under byte_fallback
// when all exist, else unk.
func (m *unigram) appendPiece(dst []int, piece string) []int {
	if id, ok := m.ids[piece]; ok {
		return append(dst, id)
	}
	if m.byteFallback {
		mark := len(dst)
		ok := true
		for i := 0; i < len(piece); i++ {
			id, found := m.ids[bytePiece(piece[i])]
			if !found {
				ok = false
				break
			}
			dst = append(dst, id)
		}
		if ok {
			return dst
		}
		dst = dst[:mark]
	}
	return append(dst, m.unkID)
}

// bytePiece is the name of byte b's fallback piece, e.g. "<0x0A>".
func bytePiece(b byte) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})
}

func (m *unigram) tokenToID(token string) (int, bool) {
	id, ok := m.ids[token]
	return id, ok
}

func (m *unigram) idToToken(id int) (string, bool) {
	if id < 0 || id >= len(m.pieces) {
		return "", false
	}
	return m.pieces[id], true
}

func (m *unigram) vocabSize() int { return len(m.pieces) }

// byteTrie finds every vocabulary piece that is a prefix of a string, in
// increasing length. Nodes keep their children as a sorted edge list.
type byteTrie struct {
	nodes []trieNode
	edges []trieEdge
}

type trieNode struct {
	first, count int32 // edges[first : first+count], sorted by label
	id           int32 // piece id ending here, or -1
}

type trieEdge struct {
	label byte
	child int32
}

// buildByteTrie indexes pieces; ids maps a piece to the id a match
// reports (the last of duplicates). Empty pieces are never matched.
func buildByteTrie(pieces []string, ids map[string]int) byteTrie {
	sorted := slices.Clone(pieces)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	// Build breadth-first over the sorted pieces: each node covers a
	// contiguous range of sorted with a common prefix of length depth.
	type pending struct {
		node   int32
		lo, hi int
		depth  int
	}
	t := byteTrie{nodes: []trieNode{{id: -1}}}
	queue := []pending{{0, 0, len(sorted), 0}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		lo := p.lo
		if lo < p.hi && len(sorted[lo]) == p.depth {
			t.nodes[p.node].id = int32(ids[sorted[lo]])
			lo++
		}
		t.nodes[p.node].first = int32(len(t.edges))
		for lo < p.hi {
			b := sorted[lo][p.depth]
			hi := lo + 1
			for hi < p.hi && sorted[hi][p.depth] == b {
				hi++
			}
			child := int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1})
			t.edges = append(t.edges, trieEdge{label: b, child: child})
			queue = append(queue, pending{child, lo, hi, p.depth + 1})
			lo = hi
		}
		t.nodes[p.node].count = int32(len(t.edges)) - t.nodes[p.node].first
	}
	t.nodes[0].id = -1 // the empty piece matches nothing
	return t
}

// prefixes calls fn(length, id) for every piece that is a prefix of s, in
// increasing length.
func (t *byteTrie) prefixes(s string, fn func(n, id int)) {
	node := int32(0)
	for i := 0; i < len(s); i++ {
		nd := t.nodes[node]
		edges := t.edges[nd.first : nd.first+nd.count]
		b := s[i]
		lo, hi := 0, len(edges)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if edges[mid].label < b {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == len(edges) || edges[lo].label != b {
			return
		}
		node = edges[lo].child
		if id := t.nodes[node].id; id >= 0 {
			fn(i+1, int(id))
		}
	}
}
