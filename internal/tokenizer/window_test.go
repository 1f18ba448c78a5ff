package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// windowTexts are texts whose pieces end where the characters after them
// decide: contractions (and the long s that folds to 's'), runs of spaces
// and newlines, digits, punctuation, capitals and non-ASCII letters.
var windowTexts = []string{
	"O, that this too too solid flesh would melt,\nThaw and resolve itself into a dew!\n\n   Or that the Everlasting had not fix'd\nHis canon 'gainst self-slaughter! O God! God!",
	"we're they'll I'd you've she's it'S WE'RE I'ſ don't 'tis o'er ne'er 123456 7,890.12 3rd 2nd",
	"a  b   c\t\td \n\n  \n e\r\n\r\nf    \n\n\n    g  \n",
	"ÀÉÎõü naïve café Straße ΑΒΓ δεζ Привет мир 日本語のテキスト 한국어 😀👍🏽 ﬁ ǅ ǈ",
	"HTTPServer getHTTPResponse XMLHttpRequest iPhone McDonald's O'Neil A.B.C. ...!!! ??? ---///\n//",
}

// windowSample is text of every kind above repeated and shuffled at the
// word level, so that runs start and end everywhere.
func windowSample(r *rand.Rand) string {
	words := strings.Fields(strings.Join(windowTexts, " "))
	seps := []string{" ", "  ", "\n", "\n\n", " \n ", "\t", "", "'s ", "'re\n", "   "}
	var b strings.Builder
	for range 400 {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}

// checkWindows compares Count of every run it tries with the tokenizer's
// Count of the run's text.
func checkWindows(t *testing.T, tok Tokenizer, text string, r *rand.Rand, runs int) {
	t.Helper()
	w, ok := tok.(WindowEncoder).EncodeWindows(text)
	if !ok {
		t.Fatalf("EncodeWindows refused %q", text)
	}
	ids := w.IDs()
	if want := tok.Encode(text); !equalInts(ids, want) {
		t.Fatalf("IDs differ from Encode")
	}
	for range runs {
		from := r.IntN(len(ids) + 1)
		to := from + r.IntN(len(ids)-from+1)
		s, ok := w.Text(from, to)
		if dec := tok.Decode(ids[from:to]); ok && s != dec {
			t.Fatalf("Text(%d, %d) = %q, Decode = %q", from, to, s, dec)
		} else if !ok {
			continue
		}
		if _, got, _ := Run([]RunPart{{w, from, to}}); got != tok.Count(s) {
			t.Fatalf("Run(%d, %d) of %q counts %d, Count %d", from, to, s, got, tok.Count(s))
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWindowsCountMatchesCount: a run's count taken from the text's pieces
// is the count of the run's text encoded afresh, for runs cut everywhere
// in texts made to break it.
func TestWindowsCountMatchesCount(t *testing.T) {
	tok := mustBuiltin(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, text := range windowTexts {
		checkWindows(t, tok, text, r, 2000)
	}
	for range 20 {
		checkWindows(t, tok, windowSample(r), r, 2000)
	}
}

// TestEncodeWindowsRefuses texts Encode treats apart.
func TestEncodeWindowsRefuses(t *testing.T) {
	tok := mustBuiltin(t).(WindowEncoder)
	for _, s := range []string{"a<|endoftext|>b", "bad \xff utf-8"} {
		if _, ok := tok.EncodeWindows(s); ok {
			t.Errorf("EncodeWindows(%q) accepted", s)
		}
	}
}

// FuzzWindowsCount holds Count to the tokenizer's own count of the run.
func FuzzWindowsCount(f *testing.F) {
	for _, s := range windowTexts {
		f.Add(s, uint16(3), uint16(40))
	}
	tok := mustBuiltin(f)
	f.Fuzz(func(t *testing.T, text string, from, span uint16) {
		w, ok := tok.(WindowEncoder).EncodeWindows(text)
		if !ok {
			return
		}
		n := len(w.IDs())
		a := int(from) % (n + 1)
		b := a + int(span)%(n-a+1)
		s, ok := w.Text(a, b)
		if !ok {
			return
		}
		if _, got, _ := Run([]RunPart{{w, a, b}}); got != tok.Count(s) {
			t.Fatalf("Run(%d, %d) of %q counts %d, Count %d", a, b, s, got, tok.Count(s))
		}
	})
}

// TestRunAcrossTexts: a run through several texts (a window that crosses
// corpus chunks, each encoded on its own) counts as its joined text
// encoded afresh, whatever the seams join: words, contractions, spaces,
// newlines.
func TestRunAcrossTexts(t *testing.T) {
	tok := mustBuiltin(t)
	r := rand.New(rand.NewPCG(5, 6))
	ends := []string{"", " ", "  ", "\n", "\n\n", "'", "'s", "word", "12", "!", " \n", "ſ"}
	for range 300 {
		var ws []*Windows
		for range 1 + r.IntN(3) {
			text := ends[r.IntN(len(ends))] + windowSample(r)[:200+r.IntN(200)] + ends[r.IntN(len(ends))]
			w, ok := tok.(WindowEncoder).EncodeWindows(text)
			if !ok {
				continue // a cut inside a character
			}
			ws = append(ws, w)
		}
		if len(ws) == 0 {
			continue
		}
		parts := make([]RunPart, len(ws))
		var ids []int
		for i, w := range ws {
			n := len(w.IDs())
			parts[i] = RunPart{W: w, From: 0, To: n}
			if i == 0 {
				parts[i].From = r.IntN(n + 1)
			}
			if i == len(ws)-1 {
				parts[i].To = parts[i].From + r.IntN(n-parts[i].From+1)
			}
			ids = append(ids, w.IDs()[parts[i].From:parts[i].To]...)
		}
		text, count, ok := Run(parts)
		if !ok {
			continue
		}
		if dec := tok.Decode(ids); text != dec {
			t.Fatalf("Run's text %q, Decode %q", text, dec)
		}
		if want := tok.Count(text); count != want {
			t.Fatalf("Run of %q counts %d, Count %d", text, count, want)
		}
	}
}
