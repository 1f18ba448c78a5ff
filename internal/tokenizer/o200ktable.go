package tokenizer

import (
	_ "embed"
	"encoding/binary"
	"fmt"
)

// o200k_base's byte-pair table, precomputed and embedded so that the builtin
// tokenizer costs nothing to load: no map is built at start-up (building a
// Go map of its 200,000 tokens took some 100 ms of CPU, most of a run's
// start-up). TestO200kTablesMatchTiktoken regenerates the three files from
// github.com/tiktoken-go/tokenizer (go test -run O200kTables -update) and
// checks them against it, token by token.
var (
	// o200kTokenBytes is every ordinary token's bytes, in id order, back
	// to back.
	//
	//go:embed o200k/o200k_base.tokens
	o200kTokenBytes string

	// o200kTokenEnds holds, as little-endian uint32s, the end offset in
	// o200kTokenBytes of each token: token id spans
	// [end(id-1), end(id)), with end(-1) = 0.
	//
	//go:embed o200k/o200k_base.ends
	o200kTokenEnds string

	// o200kTokenIndex is an open-addressing hash table from token bytes
	// to id: o200kIndexSlots little-endian uint64 entries, each 0 (empty)
	// or, from the top bit down, the top o200kTagBits of the token's
	// tokenHash, its length (8 bits), its start in o200kTokenBytes (21
	// bits) and id+1 (18 bits), so that a lookup reads one entry and then
	// compares bytes only on a tag and length match. A token is at or after
	// (linear probing, with wrap-around) the slot named by its hash's top
	// o200kIndexBits.
	//go:embed o200k/o200k_base.index
	o200kTokenIndex string
)

const (
	o200kIndexBits  = 19 // 524,288 slots for 199,998 tokens: load 0.38
	o200kIndexSlots = 1 << o200kIndexBits
	o200kIDBits     = 18 // id+1 < 2^18
	o200kStartBits  = 21 // token bytes < 2^21
	o200kLenBits    = 8  // tokens are at most 128 bytes
	o200kTagBits    = 64 - o200kIDBits - o200kStartBits - o200kLenBits
)

// tokenHash is the index's hash of a token's bytes: deterministic (the
// index is built ahead of time with it), eight bytes per step, the last
// step's bytes read as overlapping words rather than one by one.
func tokenHash(s string) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(s)) * m
	for ; len(s) > 8; s = s[8:] {
		h = (h ^ le64(s)) * m
		h ^= h >> 29
	}
	var tail uint64
	switch n := len(s); {
	case n >= 4:
		tail = uint64(le32(s, 0))<<32 | uint64(le32(s, n-4))
	case n > 0:
		tail = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	h = (h ^ tail) * m
	return h ^ h>>32
}

// vocabulary is a byte-level BPE table: for tiktoken encodings a token's id
// is also its merge rank, lower ranks merging first. Ids are dense, 0
// through n-1.
//
// A vocabulary is read-only and so safe for concurrent use.
type vocabulary struct {
	n     int    // number of tokens
	bytes string // tokens' bytes back to back, in id order
	ends  string // n little-endian uint32 end offsets into bytes
	index string // o200kIndexSlots little-endian uint64 entries (see o200kTokenIndex)
}

// o200kVocabularyFromTables returns the embedded o200k_base vocabulary. It
// only checks the tables' sizes (a few nanoseconds) and panics when they do
// not fit together, which tests rule out for the committed files.
func o200kVocabularyFromTables() *vocabulary {
	v := &vocabulary{n: o200kOrdinaryTokens, bytes: o200kTokenBytes, ends: o200kTokenEnds, index: o200kTokenIndex}
	if len(v.ends) != 4*v.n || len(v.index) != 8*o200kIndexSlots || len(v.bytes) >= 1<<o200kStartBits || v.end(v.n-1) != len(v.bytes) {
		panic(fmt.Sprintf("tokenizer: embedded o200k_base tables do not fit: %d tokens, %d end bytes, %d index bytes, %d token bytes",
			v.n, len(v.ends), len(v.index), len(v.bytes)))
	}
	return v
}

// end returns the end offset of token id's bytes.
func (v *vocabulary) end(id int) int {
	return int(le32(v.ends, 4*id))
}

// token returns the bytes of token id, which must be in [0, n).
func (v *vocabulary) token(id int) string {
	start := 0
	if id > 0 {
		start = v.end(id - 1)
	}
	return v.bytes[start:v.end(id)]
}

// rank returns the id of the token whose bytes are piece.
func (v *vocabulary) rank(piece string) (uint32, bool) {
	if len(piece) >= 1<<o200kLenBits {
		return 0, false // longer than any token
	}
	h := tokenHash(piece)
	// want is what an entry for piece holds above its start and id.
	want := (h>>(64-o200kTagBits))<<o200kLenBits | uint64(len(piece))
	for slot := h >> (64 - o200kIndexBits); ; slot = (slot + 1) & (o200kIndexSlots - 1) {
		e := le64(v.index[8*slot:])
		if e == 0 {
			return 0, false
		}
		if e>>(o200kStartBits+o200kIDBits) == want {
			start := int(e>>o200kIDBits) & (1<<o200kStartBits - 1)
			if v.bytes[start:start+len(piece)] == piece {
				return uint32(e&(1<<o200kIDBits-1)) - 1, true
			}
		}
	}
}

// le32 reads the little-endian uint32 at s[i:i+4] (the compiler merges the
// byte loads into one; a []byte conversion of the string would copy).
func le32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// le64 reads the little-endian uint64 at the start of s.
func le64(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// buildTokenIndex returns the index (in o200kTokenIndex's layout) of
// tokens, whose ids are their positions and whose bytes are back to back in
// that order. It is how the embedded index is made.
func buildTokenIndex(tokens []string) []byte {
	index := make([]byte, 8*o200kIndexSlots)
	start := 0
	for id, tok := range tokens {
		h := tokenHash(tok)
		e := (h>>(64-o200kTagBits))<<(o200kLenBits+o200kStartBits+o200kIDBits) |
			uint64(len(tok))<<(o200kStartBits+o200kIDBits) | uint64(start)<<o200kIDBits | uint64(id+1)
		slot := h >> (64 - o200kIndexBits)
		for binary.LittleEndian.Uint64(index[8*slot:]) != 0 {
			slot = (slot + 1) & (o200kIndexSlots - 1)
		}
		binary.LittleEndian.PutUint64(index[8*slot:], e)
		start += len(tok)
	}
	return index
}
