package hfdata

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type message struct {
	Role    string `parquet:"role"`
	Content string `parquet:"content"`
}

type image struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

type pqRow struct {
	Problem  string    `parquet:"problem"`
	N        int64     `parquet:"n"`
	Score    float64   `parquet:"score"`
	Messages []message `parquet:"messages,list"`
	Image    image     `parquet:"image"`
	Prompts  []string  `parquet:"prompts,list"`
}

func collect(t *testing.T, format string, paths ...string) []Row {
	t.Helper()
	var out []Row
	if err := ReadRows(format, paths, func(r Row) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadParquet(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "train-00000-of-00001.parquet")
	var rows []pqRow
	for i := range 150 { // more than one read batch
		rows = append(rows, pqRow{Problem: "p" + string(rune('a'+i%26)), N: int64(i), Score: float64(i) / 2,
			Messages: []message{{"user", "hi"}, {"assistant", "yo"}}, Image: image{Bytes: []byte{0x89, 'P'}, Path: "x.png"},
			Prompts: []string{"a", "b"}})
	}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	got := collect(t, FormatParquet, p)
	if len(got) != 150 {
		t.Fatalf("read %d rows; want 150", len(got))
	}
	want := Row{"problem": "pb", "n": int64(1), "score": 0.5,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": "yo"}},
		"image":    map[string]any{"bytes": "\x89P", "path": "x.png"}, "prompts": []any{"a", "b"}}
	if !reflect.DeepEqual(got[1], want) {
		t.Errorf("row 1 = %#v\nwant %#v", got[1], want)
	}
	// A callback can stop early.
	n := 0
	if err := ReadRows(FormatParquet, []string{p}, func(Row) error { n++; return ErrStop }); err != nil || n != 1 {
		t.Errorf("ErrStop: n=%d err=%v", n, err)
	}
	if err := ReadRows(FormatParquet, []string{filepath.Join(t.TempDir(), "none.parquet")}, func(Row) error { return nil }); err == nil {
		t.Error("a missing file read without error")
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	os.WriteFile(bad, []byte("not parquet at all"), 0o644)
	if err := ReadRows(FormatParquet, []string{bad}, func(Row) error { return nil }); err == nil {
		t.Error("a non-Parquet file read without error")
	}
}

func TestReadJSONShapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := []Row{{"a": int64(1), "b": "x"}, {"a": 2.5, "b": "y"}}
	for _, c := range []struct{ name, content string }{
		{"lines.jsonl", "{\"a\":1,\"b\":\"x\"}\n\n{\"a\":2.5,\"b\":\"y\"}\n"},
		{"array.json", "[\n {\"a\": 1, \"b\": \"x\"},\n {\"a\": 2.5, \"b\": \"y\"}\n]"},
		{"columns.json", "{\"a\": [1, 2.5],\n \"b\": [\"x\", \"y\"]}"},
	} {
		if got := collect(t, FormatJSON, write(c.name, c.content)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rows = %#v; want %#v", c.name, got, want)
		}
	}
	if got := collect(t, FormatJSON, write("one.json", `{"a": 1, "b": "x"}`)); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("single object: %#v", got)
	}
	gz := filepath.Join(dir, "lines.jsonl.gz")
	fh, _ := os.Create(gz)
	zw := gzip.NewWriter(fh)
	zw.Write([]byte("{\"a\":1,\"b\":\"x\"}\n{\"a\":2.5,\"b\":\"y\"}\n"))
	zw.Close()
	fh.Close()
	if got := collect(t, FormatJSON, gz); !reflect.DeepEqual(got, want) {
		t.Errorf("gzip: %#v", got)
	}
	bad := write("bad.jsonl", "{\"a\":1}\n{\"a\":\n")
	if err := ReadRows(FormatJSON, []string{bad}, func(Row) error { return nil }); err == nil {
		t.Error("a truncated JSON line read without error")
	}
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "train.csv")
	os.WriteFile(p, []byte("q,a\n\"hi, there\",1\nyo,2\n"), 0o644)
	got := collect(t, FormatCSV, p)
	want := []Row{{"q": "hi, there", "a": "1"}, {"q": "yo", "a": "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %#v", got)
	}
}

func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"x",null,true,{"b":[]}]}`))
	f.Add([]byte(`[1e400]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeValue(data) // must not panic
	})
}
