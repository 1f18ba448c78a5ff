package loader

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
)

// TestCompactRowsMatchConversations: a trace loaded with CompactRows gives,
// conversation for conversation, what the same trace loaded as lazy
// Conversations gives: the same IDs (seeded and not), timestamps, max
// tokens and, once built, prompt texts; Expand turns the rows into those
// Conversations. A trace with any row a compact row cannot hold (a
// session, a text prompt, a prompt without hash ids, extra fields) loads
// as Conversations, whatever its first rows.
func TestCompactRowsMatchConversations(t *testing.T) {
	sep := 7
	compact := `{"timestamp": 0, "input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 1.5, "input_length": 48, "output_length": 7, "hash_ids": [1, 2, 4]}
{"timestamp": 2, "input_length": 70, "output_length": 3, "hash_ids": [1, 5]}

{"timestamp": 3.25, "input_length": 33, "hash_ids": [9]}
{"timestamp": 4, "input_length": 16, "output_length": 0, "hash_ids": [10]}
`
	tests := []struct {
		name, content string
		sep           *int
		seeded        bool
		rows          bool // loads compact
	}{
		{"compact seeded", compact, nil, true, true},
		{"compact unseeded", compact, nil, false, true},
		{"compact separator", compact, &sep, true, true},
		{"no timestamps", "{\"input_length\": 40, \"hash_ids\": [1, 2, 3]}\n{\"input_length\": 90, \"hash_ids\": [1, 2]}\n", nil, true, true},
		{"session last", compact + `{"session_id": "s", "input_length": 20, "hash_ids": [11]}` + "\n", nil, true, false},
		{"text", compact + `{"text_input": "hello there", "output_length": 2}` + "\n", nil, false, false},
		{"no hash ids", compact + `{"input_length": 20, "output_length": 4}` + "\n", nil, true, false},
		{"extra", compact + `{"input_length": 20, "hash_ids": [12], "extra": {"a": 1}}` + "\n", nil, true, false},
		{"delay", `{"input_length": 20, "hash_ids": [12], "delay": 5}` + "\n" + compact, nil, true, false},
	}
	tok := builtinTok(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "trace", tt.content)
			o := LoadOptions{Path: path, Type: TypeMooncakeTrace, BlockSize: 16, Seed: 5, SeedSet: tt.seeded, SeparatorToken: tt.sep, LazyPrompts: true}
			if !tt.seeded {
				o.Seed = 0
			}
			want, err := Load(o, tok)
			if err != nil {
				t.Fatal(err)
			}
			o.CompactRows = true
			got, err := Load(o, tok)
			if err != nil {
				t.Fatal(err)
			}
			if (got.Dataset.Rows != nil) != tt.rows {
				t.Fatalf("compact rows: %v, want %v", got.Dataset.Rows != nil, tt.rows)
			}
			if got.Timestamps != want.Timestamps || got.Type != want.Type || got.Sampling != want.Sampling {
				t.Errorf("loaded %+v, want %+v", got, want)
			}
			if !tt.seeded {
				// Unseeded runs draw their seed: compare the IDs' form only,
				// then load both with one seed.
				id := got.Dataset.Conversation(0).ID
				if len(id) != 36 || strings.Count(id, "-") != 4 {
					t.Errorf("unseeded ID %q is not a UUID", id)
				}
				return
			}
			compareDatasets(t, got.Dataset, want.Dataset)
			got.Dataset.Expand()
			if got.Dataset.Rows != nil || len(got.Dataset.Conversations) != got.Dataset.Len() {
				t.Fatalf("Expand left rows %v, %d conversations", got.Dataset.Rows != nil, len(got.Dataset.Conversations))
			}
			compareDatasets(t, got.Dataset, want.Dataset)
		})
	}
}

// TestCompactRowsUnseededIDs: without a seed the rows' UUIDs are those
// the Conversations path draws from the same (drawn) seed.
func TestCompactRowsUnseededIDs(t *testing.T) {
	path := writeFile(t, "trace", "{\"input_length\": 40, \"hash_ids\": [1, 2, 3]}\n{\"input_length\": 90, \"hash_ids\": [1, 2]}\n")
	tok := builtinTok(t)
	l := &loader{opts: LoadOptions{Path: path, BlockSize: 16, LazyPrompts: true, CompactRows: true}, tok: tok, seed: 99}
	if _, err := l.mooncake(); err != nil || l.rows == nil {
		t.Fatalf("compact load: rows %v, err %v", l.rows != nil, err)
	}
	eager := &loader{opts: LoadOptions{Path: path, BlockSize: 16, LazyPrompts: true}, tok: tok, seed: 99}
	convs, err := eager.mooncake()
	if err != nil {
		t.Fatal(err)
	}
	compareDatasets(t, &dataset.Dataset{Rows: l.rows}, &dataset.Dataset{Conversations: convs})
}

// compareDatasets fails t where got's conversations differ from want's,
// prompts compared as built texts.
func compareDatasets(t *testing.T, got, want *dataset.Dataset) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%d conversations, want %d", got.Len(), want.Len())
	}
	for i := got.Len() - 1; i >= 0; i-- { // any order builds the same prompts
		g, w := got.Conversation(i), want.Conversation(i)
		if g.ID != w.ID || len(g.Turns) != len(w.Turns) || g.Context != w.Context || g.Parent != w.Parent || g.Branch != w.Branch {
			t.Fatalf("conversation %d: %s with %d turns, want %s with %d", i, g.ID, len(g.Turns), w.ID, len(w.Turns))
		}
		turns, at, has := got.FirstTurn(i)
		if turns != len(w.Turns) || at != w.Turns[0].Timestamp || has != w.Turns[0].HasTimestamp {
			t.Errorf("conversation %d: FirstTurn %d, %v, %v; want %d, %v, %v", i, turns, at, has, len(w.Turns), w.Turns[0].Timestamp, w.Turns[0].HasTimestamp)
		}
		for k := range g.Turns {
			gt, wt := g.Turns[k].Materialize(), w.Turns[k].Materialize()
			if !reflect.DeepEqual(gt, wt) {
				t.Errorf("conversation %d turn %d:\n got %+v\nwant %+v", i, k, gt, wt)
			}
		}
	}
}

// BenchmarkLoadCompactTrace reports the memory a loaded trace keeps per
// row, compact and as Conversations.
func BenchmarkLoadCompactTrace(b *testing.B) {
	var sb strings.Builder
	const rows = 50000
	for i := range rows {
		fmt.Fprintf(&sb, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": 8, \"hash_ids\": [%d, %d]}\n", i, 20+i%12, i%100, 1000+i)
	}
	path := writeFile(b, "trace", sb.String())
	tok := builtinTok(b)
	for _, compact := range []bool{false, true} {
		b.Run(fmt.Sprintf("compact=%v", compact), func(b *testing.B) {
			o := LoadOptions{Path: path, Type: TypeMooncakeTrace, BlockSize: 16, Seed: 1, SeedSet: true, LazyPrompts: true, CompactRows: compact}
			for b.Loop() {
				if _, err := Load(o, tok); err != nil {
					b.Fatal(err)
				}
			}
			var l *Loaded
			_, kept := allocated(func() { l, _ = Load(o, tok) })
			runtime.KeepAlive(l)
			b.ReportMetric(float64(kept)/rows, "retained-B/row")
		})
	}
}

// TestCompactRowsPresized: a trace long enough for the rows to be grown
// from the file's size (presizeAfter) loads the same conversations.
func TestCompactRowsPresized(t *testing.T) {
	var sb strings.Builder
	for i := range presizeAfter + 1500 {
		fmt.Fprintf(&sb, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [%d, %d]}\n", i, 17+i%15, i%7, i%50, 100+i)
	}
	path := writeFile(t, "trace", sb.String())
	tok := builtinTok(t)
	o := LoadOptions{Path: path, Type: TypeMooncakeTrace, BlockSize: 16, Seed: 2, SeedSet: true, LazyPrompts: true}
	want, err := Load(o, tok)
	if err != nil {
		t.Fatal(err)
	}
	o.CompactRows = true
	got, err := Load(o, tok)
	if err != nil || got.Dataset.Rows == nil {
		t.Fatalf("compact load: rows %v, err %v", got != nil && got.Dataset.Rows != nil, err)
	}
	compareDatasets(t, got.Dataset, want.Dataset)
}
