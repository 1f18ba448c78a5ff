package arrowcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
	"github.com/aiperf-go/aiperf/internal/telemetry/servermetrics"
)

// TestParquetReadsBackWithArrow scrapes the mock (vLLM style) around a few
// requests, writes the parquet export and reads it with arrow-go: AIPerf's
// columns, types and metadata, one row per gauge/counter sample and per
// bucket of each histogram sample, counters as increases.
func TestParquetReadsBackWithArrow(t *testing.T) {
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	scr := prom.NewScraper(ts.URL+"/metrics", nil)
	store := servermetrics.NewStore()
	scrape := func(at int64) {
		sc, err := scr.Scrape(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		store.Add(servermetrics.Sample{URL: sc.URL, At: at, Duplicate: sc.Duplicate, Families: sc.Families})
	}
	const sec = int64(time.Second)
	scrape(1 * sec) // the baseline, before the window
	for i := range 3 {
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json",
			strings.NewReader(`{"model":"m","prompt":"a b c","max_tokens":10,"ignore_eos":true}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		scrape(int64(2+i) * sec)
	}
	x := &servermetrics.Export{Version: "test", BenchmarkID: "abc", Profiling: servermetrics.Window{Start: 2 * sec, End: 4 * sec},
		InputConfig: map[string]any{"models": []string{"m"}}}
	b, err := x.Parquet(store, servermetrics.ParquetMeta{Models: []string{"m"}, Concurrency: "1"})
	if err != nil || b == nil {
		t.Fatalf("Parquet = %d bytes, %v", len(b), err)
	}

	rdr, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()

	// Columns, types and nullability exactly as pyarrow reads AIPerf's.
	var ref struct {
		Columns      [][]any  `json:"columns"`
		MetadataKeys []string `json:"metadata_keys"`
	}
	raw, err := os.ReadFile("../testdata/aiperf013_parquet_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	var got, want [][]any
	for _, f := range tbl.Schema().Fields() {
		typ := f.Type.String()
		switch typ { // pyarrow's names of the same Arrow types
		case "utf8":
			typ = "string"
		case "float64":
			typ = "double"
		case "float32":
			typ = "float"
		}
		got = append(got, []any{f.Name, typ, f.Nullable})
	}
	for _, c := range ref.Columns {
		want = append(want, c)
	}
	if gs, ws := jsonOf(got), jsonOf(want); gs != ws {
		t.Errorf("columns\n got %s\nwant %s (AIPerf 0.13)", gs, ws)
	}
	var keys []string
	for _, kv := range rdr.MetaData().KeyValueMetadata().Keys() {
		keys = append(keys, kv)
	}
	for _, k := range ref.MetadataKeys {
		if k == "aiperf.python_version" || k == "aiperf.pyarrow_version" {
			continue // ours says aiperf.go_version instead
		}
		if !slices.Contains(keys, k) {
			t.Errorf("metadata lacks %s", k)
		}
	}

	// Rows: the window holds the scrapes at 2, 3 and 4 s.
	col := func(name string) arrow.Array {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %s", name)
		}
		return tbl.Column(idx[0]).Data().Chunk(0)
	}
	names := col("metric_name").(*array.String)
	values := col("value").(*array.Float64)
	les := col("bucket_le").(*array.String)
	var gen []float64
	histRows := 0
	for i := range names.Len() {
		switch {
		case names.Value(i) == "vllm:generation_tokens":
			gen = append(gen, values.Value(i))
		case names.Value(i) == "vllm:time_to_first_token_seconds":
			histRows++
			if !les.IsValid(i) || !values.IsNull(i) {
				t.Fatalf("histogram row %d: bucket_le valid %v, value null %v", i, les.IsValid(i), values.IsNull(i))
			}
		}
	}
	// Each request made 10 tokens; the reference is the baseline at 1 s.
	if jsonOf(gen) != "[10,20,30]" {
		t.Errorf("generation-token rows = %v; want the increases 10, 20, 30 from the baseline", gen)
	}
	if histRows != 3*23 { // 22 finite buckets and +Inf, per sample
		t.Errorf("TTFT histogram rows = %d; want 3 samples x 23 buckets", histRows)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
