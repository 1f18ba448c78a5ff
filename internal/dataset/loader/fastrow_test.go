package loader

import (
	"slices"
	"testing"
)

// fastRowSeeds are lines the fast path takes (the first ones) and lines
// it leaves to the general path.
var fastRowSeeds = []string{
	`{"timestamp": 0.1, "input_length": 3418, "output_length": 200, "hash_ids": [0, 1, 2, 64, 65, 66, 67]}`,
	`{"hash_ids":[-3,4],"input_length":9}`,
	` { "timestamp" : 1e3 , "output_length" : 0 , "input_length" : 1 , "hash_ids" : [ 7 ] } `,
	`{"timestamp": 12, "input_length": 20, "output_length": 4, "hash_ids": [1], "session_id": "s"}`,
	`{"timestamp": -1, "input_length": 20, "hash_ids": [1]}`,
	`{"input_length": 0, "hash_ids": [1]}`,
	`{"input_length": 5.0, "hash_ids": [1]}`,
	`{"input_length": 05, "hash_ids": [1]}`,
	`{"input_length": 5, "hash_ids": []}`,
	`{"input_length": 5}`,
	`{"input_length": 5, "input_length": 6, "hash_ids": [1]}`,
	`{"input_length": 5, "hash_ids": [1,]}`,
	`{"input_length": 5, "hash_ids": [1]} x`,
	`{"input_length": 5, "hash_ids": [1.5]}`,
	`{"timestamp": 1.e3, "input_length": 5, "hash_ids": [1]}`,
	`{"timestamp": 2e12, "input_length": 5, "hash_ids": [1]}`,
	`{"input_length": 9999999999999999, "hash_ids": [1]}`,
	`{"input_l\u0065ngth": 5, "hash_ids": [1]}`,
	`{}`,
}

// TestFastRowShapes: the fast path takes the shape of generated and
// public mooncake traces, and leaves to the general path every line with
// something else in it (which that path reads, or reports, itself).
func TestFastRowShapes(t *testing.T) {
	want := map[string]fastRow{
		fastRowSeeds[0]: {ts: 0.1, hasTS: true, length: 3418, maxTokens: 200, hashIDs: []int{0, 1, 2, 64, 65, 66, 67}},
		fastRowSeeds[1]: {length: 9, hashIDs: []int{-3, 4}},
		fastRowSeeds[2]: {ts: 1000, hasTS: true, length: 1, hashIDs: []int{7}},
	}
	for _, line := range fastRowSeeds {
		var r fastRow
		ok := scanFastRow([]byte(line), &r)
		w, take := want[line]
		if ok != take {
			t.Errorf("%s: taken %v, want %v", line, ok, take)
			continue
		}
		if ok && (r.ts != w.ts || r.hasTS != w.hasTS || r.length != w.length || r.maxTokens != w.maxTokens || !slices.Equal(r.hashIDs, w.hashIDs)) {
			t.Errorf("%s: read %+v, want %+v", line, r, w)
		}
	}
}

// FuzzFastRowMatchesGeneral: every line the fast path takes, the general
// path reads too, into a compact entry of the same values.
func FuzzFastRowMatchesGeneral(f *testing.F) {
	for _, s := range fastRowSeeds {
		f.Add(s)
	}
	l := &loader{}
	f.Fuzz(func(t *testing.T, line string) {
		var r fastRow
		if !scanFastRow([]byte(line), &r) {
			return
		}
		e, err := l.mooncakeLine("trace.jsonl", 1, []byte(line))
		if err != nil {
			t.Fatalf("%q: the fast path takes it, the general path says %v", line, err)
		}
		if !compactEntry(&e) {
			t.Fatalf("%q: the fast path takes it, the general path makes a row that is not compact: %+v", line, e.one)
		}
		turn := &e.one[0]
		if turn.Timestamp != msDuration(r.ts) || turn.HasTimestamp != r.hasTS || turn.MaxTokens != r.maxTokens ||
			e.prompt.Length != r.length || !slices.Equal(e.prompt.HashIDs, r.hashIDs) {
			t.Fatalf("%q: fast %+v, general %+v %+v", line, r, *turn, *e.prompt)
		}
	})
}
