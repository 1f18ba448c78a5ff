package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// bpe is the byte-pair-encoding model ("BPE"): a word starts as one
// symbol per character and the pair of adjacent symbols with the lowest
// merge rank is merged until no ranked pair is left (leftmost first among
// equal ranks), exactly as HuggingFace's Word::merge_all does. Immutable
// after construction except for its synchronised cache.
type bpe struct {
	vocab map[string]int
	// byID maps an id back to its token: a slice indexed by id when the
	// ids are dense (as in every real vocabulary), else byIDSparse.
	byID       []string
	byIDSparse map[int]string
	merges     map[uint64]bpeMerge
	// unk is the id of unk_token, or -1 without one.
	unk          int
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	// prefix and suffix are continuing_subword_prefix and
	// end_of_word_suffix ("" when absent).
	prefix, suffix string
	// byteIDs[b] is the id of byte-fallback token "<0xXX>", or -1.
	byteIDs [256]int32
	// runeIDs[r] is the id of the single-character token r for small code
	// points (-1: not in the vocabulary), used when no prefix or suffix
	// applies; it saves a map lookup per character.
	runeIDs []int32
	cache   *wordCache
}

// bpeMerge is what a ranked pair turns into.
type bpeMerge struct {
	rank, id int32
}

// pairKey packs a pair of symbol ids into a map key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpeSpec is the tokenizer.json "model" of type BPE, less its vocab and
// merges, which are scanned separately.
type bpeSpec struct {
	Type                    string   `json:"type"`
	Dropout                 *float64 `json:"dropout"`
	UnkToken                *string  `json:"unk_token"`
	ContinuingSubwordPrefix *string  `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string  `json:"end_of_word_suffix"`
	FuseUnk                 bool     `json:"fuse_unk"`
	ByteFallback            bool     `json:"byte_fallback"`
	IgnoreMerges            bool     `json:"ignore_merges"`
}

// runeTableSize bounds runeIDs: it covers ASCII, Latin and the whole
// byte-level alphabet (up to U+0143).
const runeTableSize = 0x800

func newBPE(path string, raw json.RawMessage) (model, error) {
	var spec bpeSpec
	big, err := decodeLarge(path, "BPE", raw, &spec, "vocab", "merges")
	if err != nil {
		return nil, err
	}
	if spec.Dropout != nil && *spec.Dropout != 0 {
		return nil, fmt.Errorf("%s (BPE): dropout %v is not supported (only null or 0: dropout makes encoding random)", path, *spec.Dropout)
	}
	vocab, err := parseVocab(path+".vocab", big["vocab"])
	if err != nil {
		return nil, err
	}
	m := &bpe{
		vocab:        vocab,
		unk:          -1,
		fuseUnk:      spec.FuseUnk,
		byteFallback: spec.ByteFallback,
		ignoreMerges: spec.IgnoreMerges,
		cache:        newWordCache(),
	}
	maxID := -1
	for tok, id := range m.vocab {
		if id < 0 || id > 1<<31-1 {
			return nil, fmt.Errorf("%s.vocab: id %d of %q out of range", path, id, tok)
		}
		maxID = max(maxID, id)
	}
	if maxID < 2*len(m.vocab)+1024 {
		m.byID = make([]string, maxID+1)
		for tok, id := range m.vocab {
			m.byID[id] = tok
		}
	} else {
		m.byIDSparse = make(map[int]string, len(m.vocab))
		for tok, id := range m.vocab {
			m.byIDSparse[id] = tok
		}
	}
	if spec.ContinuingSubwordPrefix != nil {
		m.prefix = *spec.ContinuingSubwordPrefix
	}
	if spec.EndOfWordSuffix != nil {
		m.suffix = *spec.EndOfWordSuffix
	}
	if spec.UnkToken != nil {
		id, ok := m.vocab[*spec.UnkToken]
		if !ok {
			return nil, fmt.Errorf("%s.unk_token: %q is not in the vocabulary", path, *spec.UnkToken)
		}
		m.unk = id
	}
	for b := range m.byteIDs {
		m.byteIDs[b] = -1
		if id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteIDs[b] = int32(id)
		}
	}
	m.runeIDs = make([]int32, runeTableSize)
	var buf [utf8.UTFMax]byte
	for r := range m.runeIDs {
		m.runeIDs[r] = -1
		if id, ok := m.vocab[string(buf[:utf8.EncodeRune(buf[:], rune(r))])]; ok {
			m.runeIDs[r] = int32(id)
		}
	}
	pairs, err := parseMerges(path+".merges", big["merges"])
	if err != nil {
		return nil, err
	}
	m.merges = make(map[uint64]bpeMerge, len(pairs))
	for rank, p := range pairs {
		a, ok := m.vocab[p[0]]
		if !ok {
			return nil, fmt.Errorf("%s.merges[%d]: %q is not in the vocabulary", path, rank, p[0])
		}
		b, ok := m.vocab[p[1]]
		if !ok {
			return nil, fmt.Errorf("%s.merges[%d]: %q is not in the vocabulary", path, rank, p[1])
		}
		right := p[1]
		if len(m.prefix) > 0 {
			if !strings.HasPrefix(right, m.prefix) {
				return nil, fmt.Errorf("%s.merges[%d]: %q lacks continuing_subword_prefix %q", path, rank, right, m.prefix)
			}
			right = right[len(m.prefix):]
		}
		id, ok := m.vocab[p[0]+right]
		if !ok {
			return nil, fmt.Errorf("%s.merges[%d]: merged token %q is not in the vocabulary", path, rank, p[0]+right)
		}
		// A repeated pair keeps its last rank, as HuggingFace's map does.
		m.merges[pairKey(int32(a), int32(b))] = bpeMerge{rank: int32(rank), id: int32(id)}
	}
	return m, nil
}

// parseVocab reads the token-to-id map.
func parseVocab(path string, raw json.RawMessage) (map[string]int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]int{}, nil
	}
	if v, err := scanVocab(raw); err == nil {
		return v, nil
	}
	var v map[string]int
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// parseMerges reads merges in either form: "a b" strings or ["a", "b"]
// pairs.
func parseMerges(path string, raw json.RawMessage) ([][2]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if m, err := scanMerges(raw); err == nil {
		return m, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		out := make([][2]string, len(strs))
		for i, s := range strs {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("%s[%d]: %q is not two tokens separated by a space", path, i, s)
			}
			out[i] = [2]string{a, b}
		}
		return out, nil
	}
	var lists [][]string
	if err := json.Unmarshal(raw, &lists); err != nil {
		return nil, fmt.Errorf("%s: neither a list of \"a b\" strings nor a list of pairs: %w", path, err)
	}
	out := make([][2]string, len(lists))
	for i, l := range lists {
		if len(l) != 2 {
			return nil, fmt.Errorf("%s[%d]: a merge needs exactly two tokens, got %d", path, i, len(l))
		}
		out[i] = [2]string{l[0], l[1]}
	}
	return out, nil
}

func (m *bpe) tokenToID(tok string) (int, bool) {
	id, ok := m.vocab[tok]
	return id, ok
}

func (m *bpe) idToToken(id int) (string, bool) {
	if m.byIDSparse != nil {
		tok, ok := m.byIDSparse[id]
		return tok, ok
	}
	if id < 0 || id >= len(m.byID) {
		return "", false
	}
	tok := m.byID[id]
	if tok == "" { // a hole, unless the vocabulary maps "" itself to id
		if v, ok := m.vocab[""]; !ok || v != id {
			return "", false
		}
	}
	return tok, true
}

func (m *bpe) vocabSize() int { return len(m.vocab) }

// maxCachedWord is the longest word (in bytes) the cache keeps; longer
// words are rare and would crowd it out.
const maxCachedWord = 256

func (m *bpe) tokenize(dst []int, w string) []int {
	if w == "" {
		return dst
	}
	cacheable := len(w) <= maxCachedWord
	if cacheable {
		if ids, ok := m.cache.get(w); ok {
			for _, id := range ids {
				dst = append(dst, int(id))
			}
			return dst
		}
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			if cacheable {
				m.cache.put(w, []int32{int32(id)})
			}
			return append(dst, id)
		}
	}
	var stack [64]bpeSymbol
	syms := m.symbols(stack[:0], w)
	syms = m.mergeAll(syms)
	start := len(dst)
	for i := 0; i >= 0 && i < len(syms); i = int(syms[i].next) {
		dst = append(dst, int(syms[i].id))
	}
	if cacheable {
		ids := make([]int32, len(dst)-start)
		for i, id := range dst[start:] {
			ids[i] = int32(id)
		}
		m.cache.put(w, ids)
	}
	return dst
}

// bpeSymbol is one piece of a word being merged, in a doubly linked list
// over the word's initial symbols (prev/next are indexes, -1 at the ends;
// a symbol merged into its left neighbour is marked dead).
type bpeSymbol struct {
	id         int32
	prev, next int32
	dead       bool
}

// symbols appends the initial symbols of w, as HuggingFace's
// BPE::merge_word builds them: one per character, with the
// continuing-subword prefix on all but the first and the end-of-word
// suffix on the last. A character missing from the vocabulary becomes its
// byte-fallback tokens when byte_fallback and they all exist, else the
// unknown token. An unknown is held back until the next character found
// in the vocabulary (or the end): fuse_unk extends it over following
// unknown characters, and byte-fallback tokens do not flush it, exactly
// as in HuggingFace. Without an unk_token the character is dropped.
func (m *bpe) symbols(dst []bpeSymbol, w string) []bpeSymbol {
	add := func(id int32) {
		n := int32(len(dst))
		dst = append(dst, bpeSymbol{id: id, prev: n - 1, next: n + 1})
	}
	pendingUnk := false
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRuneInString(w[i:])
		first, last := i == 0, i+size == len(w)
		s := w[i : i+size]
		i += size
		plain := (first || m.prefix == "") && (!last || m.suffix == "")
		id := int32(-1)
		if plain && r < runeTableSize {
			id = m.runeIDs[r]
		} else {
			if !plain {
				if !first {
					s = m.prefix + s
				}
				if last {
					s += m.suffix
				}
			}
			if v, ok := m.vocab[s]; ok {
				id = int32(v)
			}
		}
		if id >= 0 {
			if pendingUnk {
				add(int32(m.unk))
				pendingUnk = false
			}
			add(id)
			continue
		}
		if m.byteFallback && m.allBytes(s) {
			for k := 0; k < len(s); k++ {
				add(m.byteIDs[s[k]])
			}
			continue
		}
		if m.unk < 0 {
			continue
		}
		if pendingUnk && !m.fuseUnk {
			add(int32(m.unk))
		}
		pendingUnk = true
	}
	if pendingUnk {
		add(int32(m.unk))
	}
	if len(dst) > 0 {
		dst[len(dst)-1].next = -1
	}
	return dst
}

// allBytes reports whether every byte of s has a byte-fallback token.
func (m *bpe) allBytes(s string) bool {
	for k := 0; k < len(s); k++ {
		if m.byteIDs[s[k]] < 0 {
			return false
		}
	}
	return true
}
