package hf

import (
	"encoding/json"
	"fmt"
	"slices"
)

// postProcessorSequence applies its processors in order ("Sequence").
type postProcessorSequence []postProcessor

func newPostProcessorSequence(path string, raw json.RawMessage) (postProcessor, error) {
	seq, err := newSequence(path, "processors", raw, newPostProcessor)
	if err != nil {
		return nil, err
	}
	return postProcessorSequence(seq), nil
}

func (s postProcessorSequence) process(ids []int) []int {
	for _, p := range s {
		ids = p.process(ids)
	}
	return ids
}

// templateProcessing lays a single sequence out by a template of special
// tokens and the sequence ("TemplateProcessing": "<s> $A" for Llama-2).
// Only the single-sequence template is used; the pair template is parsed
// and checked but never applied.
type templateProcessing struct {
	// pieces are the template in order: nil stands for the sequence, any
	// other slice for a special token's ids.
	pieces [][]int
}

// templatePiece is one element of a template: exactly one of the two.
type templatePiece struct {
	SpecialToken *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"Sequence"`
}

func newTemplateProcessing(path string, raw json.RawMessage) (postProcessor, error) {
	var spec struct {
		Type          string          `json:"type"`
		Single        []templatePiece `json:"single"`
		Pair          []templatePiece `json:"pair"`
		SpecialTokens map[string]struct {
			ID     string   `json:"id"`
			IDs    []int    `json:"ids"`
			Tokens []string `json:"tokens"`
		} `json:"special_tokens"`
	}
	if err := decodeStrict(path, "TemplateProcessing", raw, &spec); err != nil {
		return nil, err
	}
	check := func(field string, tmpl []templatePiece, seqs ...string) ([][]int, error) {
		var pieces [][]int
		for i, p := range tmpl {
			where := subPath(path, field, i)
			switch {
			case p.SpecialToken != nil && p.Sequence == nil:
				st, ok := spec.SpecialTokens[p.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("%s (TemplateProcessing): special token %q missing from special_tokens", where, p.SpecialToken.ID)
				}
				pieces = append(pieces, append([]int{}, st.IDs...))
			case p.Sequence != nil && p.SpecialToken == nil:
				if !slices.Contains(seqs, p.Sequence.ID) {
					return nil, fmt.Errorf("%s (TemplateProcessing): sequence %q not allowed here", where, p.Sequence.ID)
				}
				pieces = append(pieces, nil)
			default:
				return nil, fmt.Errorf("%s (TemplateProcessing): a addedPiece must be one SpecialToken or one Sequence", where)
			}
		}
		return pieces, nil
	}
	single, err := check("single", spec.Single, "A")
	if err != nil {
		return nil, err
	}
	if _, err := check("pair", spec.Pair, "A", "B"); err != nil {
		return nil, err
	}
	return templateProcessing{pieces: single}, nil
}

func (t templateProcessing) process(ids []int) []int {
	n := len(ids)
	for _, p := range t.pieces {
		n += len(p)
	}
	out := make([]int, 0, n)
	for _, p := range t.pieces {
		if p == nil {
			out = append(out, ids...)
		} else {
			out = append(out, p...)
		}
	}
	return out
}
