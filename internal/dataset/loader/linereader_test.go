package loader

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// allocated returns the bytes f allocates (TotalAlloc), and the live heap
// after f and a collection, less the live heap before.
func allocated(f func()) (total, retained int64) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	total = int64(b.TotalAlloc - a.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&b)
	return total, int64(b.HeapAlloc) - int64(a.HeapAlloc)
}

// TestLoadRefusesBinaryFileUnread: a 1 GiB file of NUL bytes (sparse, so
// it costs no disk) is refused at its first line, as not text, having read
// and allocated next to nothing of it.
func TestLoadRefusesBinaryFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zeros.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"", TypeSingleTurn, TypeMooncakeTrace, TypeBurstGPTTrace, TypeInputsJSON} {
		var err error
		total, _ := allocated(func() {
			_, err = Load(LoadOptions{Path: path, Type: typ, Seed: 1, SeedSet: true}, builtinTok(t))
		})
		var ie *dataset.InputError
		if !errors.As(err, &ie) || ie.Line != 1 || !errors.Is(err, errNUL) || !strings.Contains(err.Error(), path) {
			t.Errorf("type %q: error %v; want %s:1 naming a NUL byte", typ, err, path)
		}
		if total > 4<<20 {
			t.Errorf("type %q: refusing a 1 GiB file allocated %d bytes; want under 4 MiB", typ, total)
		}
	}
}

// TestLoadLineLimit: a line past MaxLineBytes is an error naming its line,
// found after reading about the limit, never the whole line.
func TestLoadLineLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"text":"fine"}`)
	f.WriteString(`{"text":"`)
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range MaxLineBytes>>20 + 2 {
		f.Write(chunk)
	}
	f.WriteString("\"}\n")
	f.Close()
	var lerr error
	total, _ := allocated(func() {
		_, lerr = Load(LoadOptions{Path: path, Type: TypeSingleTurn, Seed: 1, SeedSet: true}, builtinTok(t))
	})
	var ie *dataset.InputError
	if !errors.As(lerr, &ie) || ie.Line != 2 || !errors.Is(lerr, errLineTooLong) {
		t.Fatalf("error %v; want line 2 longer than the limit", lerr)
	}
	if total > 3*MaxLineBytes {
		t.Errorf("allocated %d bytes for a line cut at %d; want under 3x the limit", total, MaxLineBytes)
	}
}

// bigSingleTurn writes n single_turn lines of about 200 bytes, the line
// bad (1-based) malformed when > 0.
func bigSingleTurn(t testing.TB, n, bad int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := strings.Repeat("lorem ipsum ", 15)
	for i := 1; i <= n; i++ {
		if i == bad {
			fmt.Fprintln(f, `{"text": 5}`)
			continue
		}
		fmt.Fprintf(f, "{\"text\":\"%d %s\",\"output_length\":8}\n", i, text)
	}
	return path
}

// TestLoadKeepsOnlyWhatIsSent: with Keep, only the first conversations are
// held (the heap after loading a 50,000-line file does not grow with it),
// and a bad line far past them is still reported.
func TestLoadKeepsOnlyWhatIsSent(t *testing.T) {
	const n = 50_000
	path := bigSingleTurn(t, n, 0)
	st, _ := os.Stat(path)
	var l *Loaded
	var err error
	_, kept := allocated(func() {
		l, err = Load(LoadOptions{Path: path, Type: TypeSingleTurn, Keep: 100, Seed: 1, SeedSet: true}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(l.Dataset.Conversations); got != 100 || !strings.HasPrefix(l.Dataset.Conversations[99].Turns[0].Texts[0], "100 ") {
		t.Fatalf("kept %d conversations (last %q); want the first 100", got, l.Dataset.Conversations[got-1].Turns[0].Texts[0])
	}
	if kept > int64(st.Size())/20 {
		t.Errorf("the heap grew by %d bytes to keep 100 of %d lines (%d bytes); want under 5%% of the file", kept, n, st.Size())
	}
	runtime.KeepAlive(l)
	_, all := allocated(func() {
		l, err = Load(LoadOptions{Path: path, Type: TypeSingleTurn, Seed: 1, SeedSet: true}, nil)
	})
	if err != nil || len(l.Dataset.Conversations) != n {
		t.Fatalf("without Keep: %v, %d conversations; want %d", err, len(l.Dataset.Conversations), n)
	}
	runtime.KeepAlive(l)
	t.Logf("%d-byte file: heap +%d bytes keeping 100 conversations, +%d keeping all", st.Size(), kept, all)

	_, err = Load(LoadOptions{Path: bigSingleTurn(t, n, 40_000), Type: TypeSingleTurn, Keep: 100, Seed: 1, SeedSet: true}, nil)
	if err == nil || !strings.Contains(err.Error(), ":40000: text:") {
		t.Errorf("error %v; want the bad line 40000 reported although only 100 are kept", err)
	}
}

// TestLoadDatasetPaths: a dataset may be reached through symbolic links
// (a symlinked temporary or home directory, a link to a shared copy), but
// must be a regular file.
func TestLoadDatasetPaths(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(real, "in.jsonl")
	fifo := filepath.Join(dir, "fifo.jsonl")
	for _, err := range []error{
		os.WriteFile(file, []byte(`{"text":"hello"}`+"\n"), 0o644),
		os.Symlink(real, filepath.Join(dir, "linked-dir")),
		os.Symlink(file, filepath.Join(dir, "link.jsonl")),
		syscall.Mkfifo(fifo, 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{file, filepath.Join(dir, "linked-dir", "in.jsonl"), filepath.Join(dir, "link.jsonl")} {
		l, err := Load(LoadOptions{Path: p, Seed: 1, SeedSet: true}, nil)
		if err != nil || len(l.Dataset.Conversations) != 1 {
			t.Errorf("%s: %v; want the one conversation", p, err)
		}
	}
	_, err := Load(LoadOptions{Path: fifo, Type: TypeSingleTurn}, nil)
	if !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
		t.Errorf("FIFO: %v; want a refusal naming it, without blocking", err)
	}
}

// BenchmarkLoadSingleTurn reads a 50,000-line single_turn file keeping
// 100 conversations; its B/op is the reader's whole allocation and
// retained-B the heap left holding the dataset.
func BenchmarkLoadSingleTurn(b *testing.B) {
	path := bigSingleTurn(b, 50_000, 0)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var retained int64
	for b.Loop() {
		var l *Loaded
		_, r := allocated(func() {
			var err error
			if l, err = Load(LoadOptions{Path: path, Type: TypeSingleTurn, Keep: 100, Seed: 1, SeedSet: true}, nil); err != nil {
				b.Fatal(err)
			}
		})
		runtime.KeepAlive(l)
		retained = r
	}
	b.ReportMetric(float64(retained), "retained-B")
}

// BenchmarkLoadMooncakeTrace loads a 100,000-row timestamped mooncake
// trace (16-64 token prompts, one hash-id block each) and reports what the
// loaded dataset retains per row: trace datasets are held whole, their
// prompts built at load time (eager) or left to be built when sent (lazy,
// as a run loads them); see BENCHMARKS.md.
func BenchmarkLoadMooncakeTrace(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		fmt.Fprintf(w, "{\"timestamp\":%d,\"input_length\":%d,\"output_length\":%d,\"hash_ids\":[%d]}\n", i, 16+i%49, 1+i%16, i)
	}
	w.Flush()
	f.Close()
	tok, err := tokenizer.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		// eager: every prompt built at load time; lazy: as a run loads a
		// trace, the prompts left to be built when sent.
		b.Run(map[bool]string{false: "eager", true: "lazy"}[lazy], func(b *testing.B) {
			b.ReportAllocs()
			var retained int64
			for b.Loop() {
				var l *Loaded
				_, r := allocated(func() {
					if l, err = Load(LoadOptions{Path: path, Type: TypeMooncakeTrace, Seed: 1, SeedSet: true, LazyPrompts: lazy}, tok); err != nil {
						b.Fatal(err)
					}
				})
				runtime.KeepAlive(l)
				retained = r
			}
			b.ReportMetric(float64(retained)/n, "retained-B/row")
		})
	}
}
