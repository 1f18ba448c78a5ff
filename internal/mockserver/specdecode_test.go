package mockserver

import (
	"slices"
	"testing"
)

// planSpec follows the acceptance pattern, capped at the draft block and
// at the tokens left, and its figures agree with each other.
func TestPlanSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tokens, k                int
		steps, accepted, drafted int
		hist                     []int
	}{
		{20, 4, 7, 13, 28, []int{1, 2, 2, 1, 1}}, // 2 3 1 4 2 0 make 18 tokens, then one draft for the last 2
		{20, 2, 8, 12, 16, []int{1, 2, 5}},       // the 3s and 4s capped at 2
		{1, 4, 1, 0, 4, []int{1, 0, 0, 0, 0}},    // one token: one step, nothing to accept
		{0, 4, 0, 0, 0, []int{0, 0, 0, 0, 0}},    // no token: no step
	}
	for _, tt := range tests {
		s := planSpec(tt.tokens, tt.k)
		if s.steps != tt.steps || s.accepted != tt.accepted || s.drafted != tt.drafted || !slices.Equal(s.hist, tt.hist) {
			t.Errorf("planSpec(%d, %d) = %+v; want steps %d accepted %d drafted %d hist %v",
				tt.tokens, tt.k, s, tt.steps, tt.accepted, tt.drafted, tt.hist)
		}
		if s.accepted+s.steps != tt.tokens {
			t.Errorf("planSpec(%d, %d): %d accepted + %d steps is not the tokens", tt.tokens, tt.k, s.accepted, s.steps)
		}
	}
}

func TestValidateSpecDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		form string
		k    int
		ok   bool
	}{
		{SpecDecodeVLLM, 4, true}, {SpecDecodeTRTLLM, 1, true}, {SpecDecodeLlamaCpp, 64, true}, {SpecDecodeNone, 4, true},
		{"sglang", 4, false}, {SpecDecodeVLLM, 0, false}, {SpecDecodeVLLM, 65, false},
	} {
		c := DefaultConfig()
		c.SpecDecode, c.SpecDecodeK = tt.form, tt.k
		if err := c.Validate(); (err == nil) != tt.ok {
			t.Errorf("spec-decode %q k %d: Validate = %v; want ok %v", tt.form, tt.k, err, tt.ok)
		}
	}
}
