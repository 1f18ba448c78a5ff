package mockserver

import (
	"testing"
)

func ptr(n int) *int { return &n }

func TestOutputCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		isl        int
		maxT, minT *int
		ignoreEOS  bool
		seed       uint32
		want       int
		wantFinish string
	}{
		// ISL 10: max 20, min 8, target max min(12, 20) = 12.
		{10, nil, nil, false, 0, 8, finishStop},
		{10, nil, nil, false, 7, 10, finishStop},
		{10, nil, nil, false, 4, 12, finishStop},
		{10, nil, nil, true, 4, 20, finishLength},
		// ISL 0: max 16, min 1, target max max(min(0, 16), 1) = 1.
		{0, nil, nil, false, 999, 1, finishStop},
		// ISL 100: max 200, min 80, target 120; 80 + 999 % 41 = 80 + 15.
		{100, nil, nil, false, 999, 95, finishStop},
		// An explicit max widens the range to [min, max].
		{5, ptr(3), nil, false, 999, 3, finishLength},
		{100, ptr(50), ptr(10), false, 41, 10, finishStop},
		{100, ptr(50), ptr(10), false, 40, 50, finishLength},
		{100, ptr(500), nil, false, 421, 80, finishStop},
		// An explicit min alone also uses the full range up to the default max.
		{10, nil, ptr(2), false, 18, 20, finishLength},
		{10, nil, ptr(2), false, 17, 19, finishStop},
		{10, nil, ptr(0), false, 0, 0, finishStop},
		// min above max is clamped to max.
		{10, ptr(4), ptr(9), false, 5, 4, finishLength},
		// ignore_eos is exactly max.
		{10, ptr(7), ptr(1), true, 0, 7, finishLength},
		// The default max is bounded.
		{maxOutputTokens, nil, nil, true, 0, maxOutputTokens, finishLength},
	}
	for _, tc := range tests {
		got, finish := outputCount(tc.isl, tc.maxT, tc.minT, tc.ignoreEOS, tc.seed)
		if got != tc.want || finish != tc.wantFinish {
			t.Errorf("outputCount(%d, %v, %v, %v, %d) = %d, %s; want %d, %s",
				tc.isl, deref(tc.maxT), deref(tc.minT), tc.ignoreEOS, tc.seed, got, finish, tc.want, tc.wantFinish)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestPromptSeed(t *testing.T) {
	t.Parallel()
	// Expected values computed with Python:
	// zlib.crc32("\x1f".join(p.split()[:5]).encode()) % 1000
	tests := []struct {
		prompt string
		want   uint32
	}{
		{"one two three four five six seven eight nine ten", 260},
		{"hello big world", 369},
		{"  hello \n big\tworld ", 369},
		{"", 0},
	}
	for _, tc := range tests {
		if got := promptSeed(tc.prompt); got != tc.want {
			t.Errorf("promptSeed(%q) = %d; want %d", tc.prompt, got, tc.want)
		}
	}
}

func TestWordStreamDeterministic(t *testing.T) {
	t.Parallel()
	draw := func(text string) []int {
		w := newWordStream(text)
		out := make([]int, 64)
		for i := range out {
			out[i] = w.next(358)
		}
		return out
	}
	a, b, c := draw("same prompt"), draw("same prompt"), draw("other prompt")
	same, seen := true, map[int]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draws differ at %d for the same prompt", i)
		}
		if a[i] < 0 || a[i] >= 358 {
			t.Fatalf("draw %d out of range", a[i])
		}
		same = same && a[i] == c[i]
		seen[a[i]] = true
	}
	if same {
		t.Errorf("different prompts drew the same sequence")
	}
	if len(seen) < 32 {
		t.Errorf("64 draws hit only %d distinct words", len(seen))
	}
}
