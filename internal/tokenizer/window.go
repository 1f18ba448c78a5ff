package tokenizer

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// WindowEncoder is a Tokenizer that can keep a text's encoding in a form
// that counts any run of its tokens re-encoded without encoding the run
// again (the builtin tokenizer). Synthetic prompts are such runs of the
// corpus's tokens, and AIPerf re-encodes each to check its length.
type WindowEncoder interface {
	// EncodeWindows encodes text, kept for Windows' methods; false when
	// text is not valid UTF-8 or holds a special token's text (Encode
	// treats those apart), so that no run of it is counted this way.
	EncodeWindows(text string) (*Windows, bool)
}

// Windows is a text's encoding kept with where each token and each
// pre-tokenization piece starts. Run gives Count(Decode(ids[from:to]))
// in time proportional to the pieces at the run's two ends, not its
// length: a piece of the run that starts where one of the text starts is
// the text's piece (the split goes forward from the same characters), up
// to the last pieces before the run's end, which are split again, since
// where a piece ends can depend on a few characters after it (a
// contraction, the character after a run of spaces). Immutable; safe for
// concurrent use.
type Windows struct {
	v    *vocabulary
	text string
	ids  []int
	// starts[k] is the byte offset of token k; starts[len(ids)] is
	// len(text).
	starts []int32
	// pieces has bit x set where a piece starts (and at len(text)).
	pieces []uint64
}

// windowMargin is how many bytes before a run's end its pieces are split
// again rather than taken from the text: more than the farthest any piece's
// end depends on what follows it (a three-letter contraction, the character
// after a run of spaces, each at most 4 bytes a character).
const windowMargin = 32

// EncodeWindows implements WindowEncoder.
func (b *builtin) EncodeWindows(text string) (*Windows, bool) {
	if !utf8.ValidString(text) || strings.Contains(text, specialPrefix) || len(text) >= 1<<31 {
		return nil, false
	}
	v := b.vocab()
	w := &Windows{v: v, text: text, ids: make([]int, 0, len(text)/4+1), starts: make([]int32, 0, len(text)/4+2),
		pieces: make([]uint64, len(text)/64+1)}
	for off := 0; off < len(text); {
		n := nextPiece(text[off:])
		w.pieces[off/64] |= 1 << (off % 64)
		k := len(w.ids)
		w.ids = v.appendPiece(w.ids, text[off:off+n])
		at := off
		for _, id := range w.ids[k:] {
			w.starts = append(w.starts, int32(at))
			at += len(v.token(id))
		}
		off += n
	}
	w.pieces[len(text)/64] |= 1 << (len(text) % 64)
	w.starts = append(w.starts, int32(len(text)))
	return w, true
}

// IDs returns the text's token ids (not to be changed).
func (w *Windows) IDs() []int { return w.ids }

// Text returns Decode(ids[from:to]), the text's bytes from token from to
// token to, and true; false when a cut falls inside a character (Decode
// then gives U+FFFD for the cut bytes).
func (w *Windows) Text(from, to int) (string, bool) {
	a, b := int(w.starts[from]), int(w.starts[to])
	if a < len(w.text) && !utf8.RuneStart(w.text[a]) || b < len(w.text) && !utf8.RuneStart(w.text[b]) {
		return "", false
	}
	return w.text[a:b], true
}

// RunPart is one part of a run of tokens: tokens [From, To) of a text's
// Windows.
type RunPart struct {
	W        *Windows
	From, To int
}

// Run returns the text of parts joined, which is Decode of their tokens
// joined, and how many tokens that text encodes to (Count), without
// decoding or encoding the parts again; ok is false when a cut falls
// inside a character (Decode then gives U+FFFD for the cut bytes). In each
// part the text's own pieces are reused from where the run's pieces meet
// them to the last that starts windowMargin bytes or more before the
// part's end; the rest, the seams between parts included, is split and
// encoded afresh.
func Run(parts []RunPart) (text string, count int, ok bool) {
	if text, ok = runText(parts); !ok || len(parts) == 0 {
		return text, 0, ok
	}
	v := parts[0].W.v
	p, off := 0, 0 // the next piece's start in text; the part's start
	for _, r := range parts {
		w, base := r.W, int(r.W.starts[r.From])
		end := off + int(w.starts[r.To]) - base
		// Split until a piece starts where one of the part's text does.
		for p < end && (p < off || !w.pieceAt(p-off+base)) {
			p, count = splitPiece(v, text, p, count)
		}
		if p < end {
			if y := w.lastPieceAtOrBefore(end - windowMargin - off + base); y > p-off+base {
				count += w.tokenAt(y) - w.tokenAt(p-off+base)
				p = y - base + off
			}
		}
		off = end
	}
	for p < len(text) {
		p, count = splitPiece(v, text, p, count)
	}
	return text, count, true
}

// runText returns the parts' texts joined; false when a cut falls inside
// a character.
func runText(parts []RunPart) (string, bool) {
	if len(parts) == 1 {
		return parts[0].W.Text(parts[0].From, parts[0].To)
	}
	var b strings.Builder
	for _, r := range parts {
		s, ok := r.W.Text(r.From, r.To)
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

// splitPiece encodes the piece of text that starts at p: it returns where
// the next starts and count plus the piece's tokens.
func splitPiece(v *vocabulary, text string, p, count int) (int, int) {
	n := nextPiece(text[p:])
	return p + n, count + v.countPiece(text[p:p+n])
}

// pieceAt reports whether a piece of the text starts at byte x.
func (w *Windows) pieceAt(x int) bool { return w.pieces[x/64]&(1<<(x%64)) != 0 }

// lastPieceAtOrBefore returns the last piece start at or before byte x,
// or -1.
func (w *Windows) lastPieceAtOrBefore(x int) int {
	for ; x >= 0; x-- {
		if word := w.pieces[x/64] & (^uint64(0) >> (63 - x%64)); word != 0 {
			return x/64*64 + 63 - bits.LeadingZeros64(word)
		}
		x = x / 64 * 64 // to the word's first bit; the loop steps below it
	}
	return -1
}

// tokenAt returns the index of the token that starts at byte x (a piece
// start, so a token start).
func (w *Windows) tokenAt(x int) int {
	k, _ := slices.BinarySearch(w.starts, int32(x))
	return k
}
