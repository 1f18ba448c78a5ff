package mockserver

import "testing"

func TestMaxOverlap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spans []Span
		want  int
	}{
		{"none", nil, 0},
		{"one", []Span{{0, 10}}, 1},
		{"back to back counts once", []Span{{0, 10}, {10, 20}}, 1},
		{"nested", []Span{{0, 100}, {10, 20}, {15, 30}}, 3},
		{"disjoint", []Span{{0, 1}, {5, 6}, {9, 10}}, 1},
		{"unordered", []Span{{50, 60}, {0, 55}, {58, 70}}, 2},
	} {
		if got := MaxOverlap(tc.spans); got != tc.want {
			t.Errorf("%s: MaxOverlap = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSpansFollowTheRecord(t *testing.T) {
	rs := []RecordedRequest{{ReceivedNs: 1, EndNs: 5}, {ReceivedNs: 3, EndNs: 9}}
	got := Spans(rs)
	if len(got) != 2 || got[0] != (Span{1, 5}) || got[1] != (Span{3, 9}) {
		t.Fatalf("Spans = %v", got)
	}
	if MaxOverlap(got) != 2 {
		t.Fatalf("overlap of %v", got)
	}
}
