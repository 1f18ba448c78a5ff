package hf

import "testing"

// TestBPEIDToToken checks the id-to-token table in both of its forms: a
// slice for dense ids (with holes, and with a vocabulary that maps "" to an
// id) and a map for ids too sparse for a slice.
func TestBPEIDToToken(t *testing.T) {
	tests := []struct {
		name   string
		vocab  string
		sparse bool
		want   map[int]string // ids with a token
		absent []int
	}{
		{"dense", `{"a":0,"b":1,"ab":2}`, false, map[int]string{0: "a", 1: "b", 2: "ab"}, []int{-1, 3, 99}},
		{"holes", `{"a":0,"b":1,"ab":5}`, false, map[int]string{0: "a", 1: "b", 5: "ab"}, []int{2, 3, 4, 6}},
		{"empty token", `{"":3,"a":0,"b":1,"ab":2}`, false, map[int]string{0: "a", 3: ""}, []int{4}},
		{"sparse", `{"a":0,"b":1,"ab":2000000}`, true, map[int]string{0: "a", 2000000: "ab"}, []int{2, 1999999, 2000001}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `{"type":"BPE","vocab":` + tt.vocab + `,"merges":["a b"]}`
			mod, err := newBPE("model", []byte(spec))
			if err != nil {
				t.Fatal(err)
			}
			m := mod.(*bpe)
			if (m.byIDSparse != nil) != tt.sparse {
				t.Errorf("sparse table %v, want %v", m.byIDSparse != nil, tt.sparse)
			}
			for id, want := range tt.want {
				if got, ok := m.idToToken(id); !ok || got != want {
					t.Errorf("idToToken(%d) = %q, %v; want %q", id, got, ok, want)
				}
			}
			for _, id := range tt.absent {
				if got, ok := m.idToToken(id); ok {
					t.Errorf("idToToken(%d) = %q, want none", id, got)
				}
			}
		})
	}
}
