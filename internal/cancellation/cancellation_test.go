package cancellation

import "testing"

func TestCancellerChoiceIsSeededAndProportional(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prob     float64
		min, max int // of 10,000 draws
	}{
		{1, 10000, 10000},
		{0.5, 4800, 5200},
		{0.1, 900, 1100},
		{0.005, 30, 70},
	}
	for _, tt := range tests {
		a := &canceller{prob: tt.prob, seed: 7 ^ cancellationSalt}
		b := &canceller{prob: tt.prob, seed: 7 ^ cancellationSalt}
		other := &canceller{prob: tt.prob, seed: 8 ^ cancellationSalt}
		n, differ := 0, false
		for seq := range uint64(10000) {
			ca := a.chosen(seq, 0)
			if ca != b.chosen(seq, 0) {
				t.Fatalf("prob %v: seq %d chosen differently with the same seed", tt.prob, seq)
			}
			if ca != other.chosen(seq, 0) {
				differ = true
			}
			if ca {
				n++
			}
		}
		if n < tt.min || n > tt.max {
			t.Errorf("prob %v: %d of 10000 chosen; want %d..%d", tt.prob, n, tt.min, tt.max)
		}
		if tt.prob < 1 && !differ {
			t.Errorf("prob %v: seeds 7 and 8 chose the same requests", tt.prob)
		}
	}
	c := &canceller{prob: 0.5, seed: 1}
	same := 0
	for seq := range uint64(1000) {
		if c.chosen(seq, 0) == c.chosen(seq, 1) {
			same++
		}
	}
	if same > 600 {
		t.Errorf("turns 0 and 1 agree on %d of 1000 credits; want independent draws", same)
	}
}
