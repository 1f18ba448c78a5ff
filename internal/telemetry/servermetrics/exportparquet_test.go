package servermetrics

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// mockParquet scrapes the mock (vLLM style) once before and after each of
// three requests of 10 tokens and returns the parquet export of the
// window from the second scrape on.
func mockParquet(t *testing.T) []byte {
	t.Helper()
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	scr := prom.NewScraper(ts.URL+"/metrics", nil)
	store := NewStore()
	const sec = int64(time.Second)
	scrape := func(at int64) {
		sc, err := scr.Scrape(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		store.Add(Sample{URL: sc.URL, At: at, Duplicate: sc.Duplicate, Families: sc.Families})
	}
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
	x := &Export{Version: "test", BenchmarkID: "abc", Profiling: Window{Start: 2 * sec, End: 4 * sec},
		InputConfig: map[string]any{"models": []string{"m"}}}
	b, err := x.Parquet(store, ParquetMeta{Models: []string{"m"}, Concurrency: "1"})
	if err != nil || b == nil {
		t.Fatalf("Parquet = %d bytes, %v", len(b), err)
	}
	return b
}

// loadParquetReference reads AIPerf 0.13's parquet schema
// (testdata/aiperf013_parquet_schema.json): [name, pyarrow type,
// nullable] per column, and the metadata keys.
func loadParquetReference(t *testing.T) (columns [][]any, metadataKeys []string) {
	t.Helper()
	var ref struct {
		Columns      [][]any  `json:"columns"`
		MetadataKeys []string `json:"metadata_keys"`
	}
	raw, err := os.ReadFile("testdata/aiperf013_parquet_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Columns, ref.MetadataKeys
}

// TestParquetReadsBack reads the parquet export of mockParquet back:
// AIPerf 0.13's columns in its order, its metadata keys, and the counter
// rows as increases from the baseline. TestParquetReadsBackWithArrow
// (exportparquet_arrow_test.go, -tags arrowcheck: arrow-go is slow to
// build) reads the same file with Apache Arrow too.
func TestParquetReadsBack(t *testing.T) {
	b := mockParquet(t)
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	refColumns, refKeys := loadParquetReference(t)
	var got, want []string
	for _, c := range f.Schema().Fields() {
		got = append(got, c.Name())
	}
	for _, c := range refColumns {
		want = append(want, c[0].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("columns\n got %v\nwant %v (AIPerf 0.13)", got, want)
	}
	for _, k := range refKeys {
		if k == "aiperf.python_version" || k == "aiperf.pyarrow_version" {
			continue // ours says aiperf.go_version instead
		}
		if _, ok := f.Lookup(k); !ok {
			t.Errorf("metadata lacks %s", k)
		}
	}

	type row struct {
		Name     *string  `parquet:"metric_name"`
		Value    *float64 `parquet:"value"`
		BucketLE *string  `parquet:"bucket_le"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var gen []float64
	hist := 0
	for _, r := range rows {
		switch *r.Name {
		case "vllm:generation_tokens":
			gen = append(gen, *r.Value)
		case "vllm:time_to_first_token_seconds":
			hist++
			if r.BucketLE == nil || r.Value != nil {
				t.Fatalf("histogram row: bucket_le %v, value %v; want a bucket and no value", r.BucketLE, r.Value)
			}
		}
	}
	// Each request made 10 tokens; the reference is the baseline at 1 s.
	if g, _ := json.Marshal(gen); string(g) != "[10,20,30]" {
		t.Errorf("generation-token rows = %s; want the increases 10, 20, 30 from the baseline", g)
	}
	if hist != 3*23 { // 22 finite buckets and +Inf, per sample
		t.Errorf("TTFT histogram rows = %d; want 3 samples x 23 buckets", hist)
	}
}
