package dataset

import "errors"

// Prompt is a trace prompt kept as what builds it rather than as its text
// (its PromptSource), so a trace of a million rows fits in memory and its
// first request goes out before any prompt is built. Text builds the same
// text the load-time path builds, so a seeded run sends byte-identical
// bodies either way. Safe for concurrent use.
type Prompt struct {
	src PromptSource
}

// PromptSource is what builds a lazy prompt (the synthesis package's
// hash-id prompts): its text, its length in corpus tokens, and the
// dataset tokenizer's count of a text.
type PromptSource interface {
	Text() string
	Len() int
	Count(text string) int
}

// NewPrompt returns the lazy prompt that src builds.
func NewPrompt(src PromptSource) *Prompt { return &Prompt{src: src} }

// errLazyGob says a lazy prompt was asked to travel.
var errLazyGob = errors.New("dataset: a lazy trace prompt cannot be encoded (it builds from this process's corpus); materialize the dataset first")

// GobEncode refuses: a lazy prompt builds from a corpus and a block cache
// that stay in the process that loaded the trace, so a dataset sent
// elsewhere (to load workers) is materialized first and its Prompts are
// nil. Implementing it lets gob encode a Turn, whose nil Prompt it skips.
func (p *Prompt) GobEncode() ([]byte, error) { return nil, errLazyGob }

// GobDecode refuses, as GobEncode does.
func (p *Prompt) GobDecode([]byte) error { return errLazyGob }

// Len returns the prompt's length in corpus tokens (the trace's
// input_length).
func (p *Prompt) Len() int { return p.src.Len() }

// Text builds the prompt.
func (p *Prompt) Text() string { return p.src.Text() }

// Materialize returns the turn with its prompt built: Texts holds the
// text and Prompt is nil. A turn without a Prompt is returned as it is.
// InputTokens stays as it was (-1 for a lazy prompt): the record path
// counts the text it sent.
func (t *Turn) Materialize() Turn {
	out := *t
	if t.Prompt != nil {
		out.Texts, out.Prompt = []string{t.Prompt.Text()}, nil
	}
	return out
}

// Materialize builds every lazy prompt of d in place, with its token
// count, for a consumer that needs the texts up front (a body rendered
// with a chat template, a dataset sent to other processes).
func (d *Dataset) Materialize() {
	d.Expand()
	type at struct{ c, t int }
	var lazy []at
	for c := range d.Conversations {
		for t := range d.Conversations[c].Turns {
			if d.Conversations[c].Turns[t].Prompt != nil {
				lazy = append(lazy, at{c, t})
			}
		}
	}
	ForEachParallel(len(lazy), func(i int) {
		turn := &d.Conversations[lazy[i].c].Turns[lazy[i].t]
		p := turn.Prompt
		text := p.Text()
		turn.Texts, turn.Prompt, turn.InputTokens = []string{text}, nil, p.src.Count(text)
	})
}
