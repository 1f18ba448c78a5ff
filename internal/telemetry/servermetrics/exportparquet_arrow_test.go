//go:build arrowcheck

package servermetrics

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestParquetReadsBackWithArrow reads mockParquet's file with Apache
// Arrow's own Go implementation (an independent parquet reader; a
// test-only dependency that takes about two minutes to build on two
// cores, hence the build tag):
//
//	GOTOOLCHAIN=local go test -tags arrowcheck -run Arrow ./internal/telemetry/servermetrics/
//
// AIPerf 0.13's columns, types and nullability as pyarrow reads them, its
// metadata, one row per gauge/counter sample and per bucket of each
// histogram sample, counters as increases.
func TestParquetReadsBackWithArrow(t *testing.T) {
	b := mockParquet(t)
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
	refColumns, refKeys := loadParquetReference(t)
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
	for _, c := range refColumns {
		want = append(want, c)
	}
	if gs, ws := jsonOf(got), jsonOf(want); gs != ws {
		t.Errorf("columns\n got %s\nwant %s (AIPerf 0.13)", gs, ws)
	}
	var keys []string
	for _, kv := range rdr.MetaData().KeyValueMetadata().Keys() {
		keys = append(keys, kv)
	}
	for _, k := range refKeys {
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
	if g, _ := json.Marshal(gen); string(g) != "[10,20,30]" {
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
