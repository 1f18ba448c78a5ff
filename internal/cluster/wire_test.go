package cluster

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
	"github.com/aiperf-go/aiperf/internal/record"
)

// fill sets every field reachable from v to a distinct non-zero value, so
// a field the wire format forgets shows up as a difference.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)) + time.Duration(*n).String())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n % 200))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func TestRecordWireRoundTripCoversEveryField(t *testing.T) {
	var in record.Record
	n := 0
	fill(reflect.ValueOf(&in).Elem(), &n)
	in.Phase = record.Warmup // a valid phase
	b, err := proto.Marshal(RecordToWire(&in))
	if err != nil {
		t.Fatal(err)
	}
	var w clusterpb.Record
	if err := proto.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	out := RecordFromWire(&w)
	if d := cmp.Diff(&in, out); d != "" {
		t.Errorf("a record does not survive the wire (-sent +received); a field of record.Record needs a field in cluster.proto:\n%s", d)
	}
}

func TestRecordWireKeepsNilsNil(t *testing.T) {
	in := &record.Record{Seq: 3, XRequestID: "x", InputTokens: -1}
	out := RecordFromWire(RecordToWire(in))
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("(-sent +received):\n%s", d)
	}
}

func FuzzRecordFromWire(f *testing.F) {
	var in record.Record
	n := 0
	fill(reflect.ValueOf(&in).Elem(), &n)
	b, _ := proto.Marshal(RecordToWire(&in))
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var w clusterpb.Record
		if proto.Unmarshal(data, &w) != nil {
			return
		}
		rec := RecordFromWire(&w)
		again := RecordFromWire(RecordToWire(rec))
		if d := cmp.Diff(rec, again); d != "" {
			t.Errorf("not stable through a second round trip:\n%s", d)
		}
	})
}
