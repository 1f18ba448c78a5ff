package hf

import "unicode/utf8"

// addedToken is one entry of tokenizer.json's "added_tokens".
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedVocab holds the added tokens and finds them in text before
// anything else runs, as HuggingFace's AddedVocabulary does. Tokens with
// normalized=false are matched on the raw input; tokens with
// normalized=true on each normalized section, by their normalized
// content. Immutable after construction.
type addedVocab struct {
	byContent map[string]int
	// byID maps an id back to its text: the content, normalized when the
	// token is (HuggingFace's id_to_token and decode return "fix" for a
	// normalized "ﬁx" under NFKC, while token_to_id knows only "ﬁx").
	byID    map[int]string
	special map[string]bool
	raw     *addedTrie
	norm    *addedTrie
}

// newAddedVocab assigns ids and builds the matchers the way HuggingFace's
// AddedVocabulary::add_tokens does when a tokenizer.json is loaded: a
// token already in the model's vocabulary keeps the model's id; any other
// gets the next id past both the vocabulary and the ids given so far. The
// "id" field of the file is not consulted (HuggingFace only warns when
// it disagrees); in every real file it agrees.
func newAddedVocab(tokens []addedToken, m model, n normalizer) *addedVocab {
	v := &addedVocab{
		byContent: map[string]int{},
		byID:      map[int]string{},
		special:   map[string]bool{},
	}
	var specials, others []*addedToken
	maxID := -1
	for i := range tokens {
		t := &tokens[i]
		if t.Content == "" {
			continue
		}
		if t.Special && !v.special[t.Content] {
			v.special[t.Content] = true
			specials = append(specials, t)
		}
		if _, dup := v.byContent[t.Content]; dup {
			continue
		}
		id, ok := m.tokenToID(t.Content)
		if !ok {
			switch size := m.vocabSize(); {
			case maxID < 0:
				id = size
			case maxID >= size || size == 0:
				id = maxID + 1
			default:
				id = size
			}
		}
		v.byContent[t.Content] = id
		v.byID[id] = t.Content
		maxID = max(maxID, id)
		if !v.special[t.Content] {
			others = append(others, t)
		}
	}
	order := append(specials, others...) // HF's tries list special tokens first
	v.raw, v.norm = newAddedTrie(), newAddedTrie()
	for _, t := range order {
		id := v.byContent[t.Content]
		if t.Normalized {
			content := t.Content
			if n != nil {
				content = n.normalize(content)
			}
			v.byID[id] = content
			v.norm.add(content, id, t)
		} else {
			v.raw.add(t.Content, id, t)
		}
	}
	return v
}

// tokenToID is the id of an added token's content.
func (v *addedVocab) tokenToID(s string) (int, bool) {
	id, ok := v.byContent[s]
	return id, ok
}

// idToToken is the content of an added token's id.
func (v *addedVocab) idToToken(id int) (string, bool) {
	s, ok := v.byID[id]
	return s, ok
}

// addedTrie is a byte trie of added-token contents for leftmost-longest
// matching (HuggingFace uses Aho-Corasick with MatchKind::LeftmostLongest,
// which finds the same matches).
type addedTrie struct {
	nodes []addedNode
	// firstByte[b] is set when some token starts with byte b, so most
	// positions are skipped without walking the trie.
	firstByte [256]bool
	empty     bool
}

type addedNode struct {
	children map[byte]int32
	// id is the token ending here, or -1.
	id  int
	tok *addedToken
}

func newAddedTrie() *addedTrie {
	return &addedTrie{nodes: []addedNode{{id: -1}}, empty: true}
}

// add inserts content; the first token inserted for a content wins.
func (t *addedTrie) add(content string, id int, tok *addedToken) {
	if content == "" {
		return
	}
	t.empty = false
	t.firstByte[content[0]] = true
	n := int32(0)
	for i := 0; i < len(content); i++ {
		c := content[i]
		next, ok := t.nodes[n].children[c]
		if !ok {
			if t.nodes[n].children == nil {
				t.nodes[n].children = map[byte]int32{}
			}
			next = int32(len(t.nodes))
			t.nodes = append(t.nodes, addedNode{id: -1})
			t.nodes[n].children[c] = next
		}
		n = next
	}
	if t.nodes[n].id < 0 {
		t.nodes[n].id = id
		t.nodes[n].tok = tok
	}
}

// longest returns the end of the longest token starting at s[i], or -1.
func (t *addedTrie) longest(s string, i int) (end int, node int32) {
	end, node = -1, -1
	n := int32(0)
	for j := i; j < len(s); j++ {
		next, ok := t.nodes[n].children[s[j]]
		if !ok {
			break
		}
		n = next
		if t.nodes[n].id >= 0 {
			end, node = j+1, n
		}
	}
	return end, node
}

// addedPiece is one part of a split: a run of text (id < 0) or an added token.
type addedPiece struct {
	start, end int
	id         int
}

// split appends the pieces of s: the added tokens found (with their
// lstrip/rstrip whitespace and single_word rule applied, as
// AddedVocabulary::find_matches does) and the text between them. Only
// non-empty text pieces are kept.
func (t *addedTrie) split(dst []addedPiece, s string) []addedPiece {
	if t.empty {
		if s != "" {
			dst = append(dst, addedPiece{0, len(s), -1})
		}
		return dst
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if !t.firstByte[s[i]] {
			i++
			continue
		}
		end, node := t.longest(s, i)
		if end < 0 {
			i++
			continue
		}
		tok := t.nodes[node].tok
		start, stop := i, end
		i = end // matching resumes after the raw match, as Aho-Corasick's iterator does
		if tok.SingleWord {
			startSpace := start == 0 || !endsWithWordChar(s[:start])
			stopSpace := stop == len(s) || !startsWithWordChar(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.LStrip {
			start = max(trailingSpaceStart(s[:start]), startOffset)
		}
		if tok.RStrip {
			stop += leadingSpaceLen(s[stop:])
		}
		if startOffset < start {
			dst = append(dst, addedPiece{startOffset, start, -1})
		}
		dst = append(dst, addedPiece{start, stop, t.nodes[node].id})
		startOffset = stop
	}
	if startOffset < len(s) {
		dst = append(dst, addedPiece{startOffset, len(s), -1})
	}
	return dst
}

// endsWithWordChar is the regex \w$ of Rust's regex crate.
func endsWithWordChar(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordChar(r)
}

// startsWithWordChar is the regex ^\w.
func startsWithWordChar(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordChar(r)
}

// trailingSpaceStart is where the run of whitespace ending s starts.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !isRustWhitespace(r) {
			break
		}
		i -= n
	}
	return i
}

// leadingSpaceLen is the length of the run of whitespace starting s.
func leadingSpaceLen(s string) int {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isRustWhitespace(r) {
			break
		}
		i += n
	}
	return i
}
