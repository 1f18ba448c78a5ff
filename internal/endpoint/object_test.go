package endpoint

import (
	"strings"
	"testing"
)

func TestTruthy(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"true": true, "false": false, "null": false, "0": false, "0.0": false, "-0": false, "1": true,
		"1e-9": true, `""`: false, `"0"`: true, `"false"`: true, "[]": false, "[ ]": false, "[0]": true,
		"{}": false, "{ }": false, `{"a":0}`: true, " true ": true,
	} {
		got, err := Truthy([]byte(raw))
		if err != nil || got != want {
			t.Errorf("Truthy(%s) = %v, %v; want %v", raw, got, err, want)
		}
	}
	if _, err := Truthy([]byte("{")); err == nil {
		t.Error("Truthy({) accepted invalid JSON")
	}
}

// TestObjectDictSemantics: Set replaces in place and appends new keys, as
// Python's dict.update orders AIPerf's bodies; Merge compacts values and
// names the key of an invalid one; Delete keeps the others' order.
func TestObjectDictSemantics(t *testing.T) {
	t.Parallel()
	var o Object
	o.SetString("model", "m")
	o.SetStrings("input", []string{"a", "b"})
	o.SetBool("stream", false)
	if err := o.Merge([]ExtraInput{
		{Key: "model", Value: []byte(`"other"`)},
		{Key: "dims", Value: []byte(` [ 1 , 2 ] `)},
		{Key: "skip", Value: []byte(`1`)},
	}, func(e ExtraInput) bool { return e.Key == "skip" }); err != nil {
		t.Fatal(err)
	}
	o.Delete("stream")
	if got, want := string(o.AppendTo(nil)), `{"model":"other","input":["a","b"],"dims":[1,2]}`; got != want {
		t.Errorf("AppendTo = %s; want %s", got, want)
	}
	err := o.Merge([]ExtraInput{{Key: "bad", Value: []byte(`{`)}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("Merge(invalid) = %v; want an error naming the key", err)
	}
}

func TestParseObject(t *testing.T) {
	t.Parallel()
	o, err := ParseObject([]byte(` {"b": 1, "a": {"x" : "\u00e9"}, "b": 2} `))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(o.AppendTo(nil)), `{"b":2,"a":{"x":"é"}}`; got != want {
		t.Errorf("ParseObject round trip = %s; want %s", got, want)
	}
	for _, bad := range []string{`[1]`, `{"a":}`, `"s"`} {
		if _, err := ParseObject([]byte(bad)); err == nil {
			t.Errorf("ParseObject(%s) accepted", bad)
		}
	}
}
