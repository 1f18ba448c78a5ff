package export

import "testing"

func TestSortKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":{"d":[{"z":1.0,"y":"x"}],"c":null}}`,
			"{\n  \"a\": {\n    \"c\": null,\n    \"d\": [\n      {\n        \"y\": \"x\",\n        \"z\": 1.0\n      }\n    ]\n  },\n  \"b\": 1\n}"},
		// Numbers keep their spelling; names sort by code point.
		{`{"p99":1e-7,"p10":10.0,"P1":0.30000000000000004,"é":true}`,
			"{\n  \"P1\": 0.30000000000000004,\n  \"p10\": 10.0,\n  \"p99\": 1e-7,\n  \"é\": true\n}"},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`"a\u003cb"`, `"a\u003cb"`},
	} {
		got, err := SortKeys([]byte(tc.in))
		if err != nil {
			t.Fatalf("SortKeys(%s): %v", tc.in, err)
		}
		if string(got) != tc.want {
			t.Errorf("SortKeys(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
	if _, err := SortKeys([]byte(`{"a":`)); err == nil {
		t.Error("SortKeys of truncated JSON: want an error")
	}
}

func FuzzSortKeys(f *testing.F) {
	f.Add([]byte(`{"b":[1,{"d":2,"c":3}],"a":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := SortKeys(b)
		if err != nil {
			return
		}
		again, err := SortKeys(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %s -> %s (%v)", out, again, err)
		}
	})
}
