package pyfmt

import (
	"math"
	"testing"
)

// The expected spellings below are CPython 3.11's (repr(), f"{v:,.2f}",
// f"{n:,}"), printed by python3 and pasted as they came.

func TestFloat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want string
	}{
		{20.0, "20.0"},
		{2.5, "2.5"},
		{0.0001, "0.0001"},
		{1e-05, "1e-05"},
		{1.5e-07, "1.5e-07"},
		{1e+16, "1e+16"},
		{1000000000000000.0, "1000000000000000.0"},
		{123.456, "123.456"},
		{0.0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{5e-324, "5e-324"},
		{1.7976931348623157e+308, "1.7976931348623157e+308"},
		{0.30000000000000004, "0.30000000000000004"},
		{9999999999999998.0, "9999999999999998.0"},
		{-66.4552775, "-66.4552775"},
		{1234567890123456.8, "1234567890123456.8"},
		{1e+22, "1e+22"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{12345678.9, "12345678.9"},
		{9.99e-05, "9.99e-05"},
	}
	for _, c := range cases {
		if got := Float(c.in); got != c.want {
			t.Errorf("Float(%v) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	// orjson 3.11's spellings, as AIPerf writes them.
	cases := []struct {
		in   float64
		want string
	}{
		{10, "10.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1e16, "1e+16"},
		{1.5e-5, "0.000015"},
		{1e-5, "0.00001"},
		{1e-7, "1e-7"},
		{1.23456e-8, "1.23456e-8"},
		{5e-324, "5e-324"},
	}
	for _, c := range cases {
		if got := string(AppendJSON(nil, c.in)); got != c.want {
			t.Errorf("AppendJSON(%v) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"abc", "'abc'"},
		{"it's", "\"it's\""},
		{"say \"hi\"", "'say \"hi\"'"},
		{"both ' and \"", "'both \\' and \"'"},
		{"back\\slash", "'back\\\\slash'"},
		{"tab\there\nnl\rcr", "'tab\\there\\nnl\\rcr'"},
		{"\u0000\u001f\u007f", "'\\x00\\x1f\\x7f'"},
		{"\u0080\u009f\u00a0", "'\\x80\\x9f\\xa0'"},
		{"caf\u00e9 \u4e2d\u6587", "'caf\u00e9 \u4e2d\u6587'"},
		{"\u2028\u200b\ufeff", "'\\u2028\\u200b\\ufeff'"},
		{"\U0001F600", "'\U0001F600'"},
		{"\U000E0001", "'\\U000e0001'"},
		{"\ue000", "'\\ue000'"},
		{"\u0378", "'\\u0378'"},
		{"", "''"},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestReprAndStr(t *testing.T) {
	t.Parallel()
	v := []any{nil, true, false, int64(3), 2.5, 1e-05, "x", []any{1, "it's"}, Dict{{"b", 1}, {"a", []any{nil}}}}
	if got, want := Repr(v), `[None, True, False, 3, 2.5, 1e-05, 'x', [1, "it's"], {'b': 1, 'a': [None]}]`; got != want {
		t.Errorf("Repr = %s; want %s", got, want)
	}
	if got, want := Repr(map[string]any{"b": 1, "a": "z"}), `{'a': 'z', 'b': 1}`; got != want {
		t.Errorf("Repr(map) = %s; want %s (keys sorted)", got, want)
	}
	for _, c := range []struct {
		in   any
		want string
	}{{3, "3"}, {2.0, "2.0"}, {nil, "None"}, {[]any{1, "a"}, "[1, 'a']"}, {"it's", "it's"}} {
		if got := Str(c.in); got != c.want {
			t.Errorf("Str(%#v) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestGrouped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in       float64
		decimals int
		want     string
	}{
		{0, 2, "0.00"},
		{999.994, 2, "999.99"},
		{999.996, 2, "1,000.00"},
		{1360.957, 2, "1,360.96"},
		{1234567.891, 2, "1,234,567.89"},
		{-1234.5, 2, "-1,234.50"},
		{-0.001, 2, "-0.00"},
		{100000, 2, "100,000.00"},
		{123456789012.345, 2, "123,456,789,012.35"},
		{1234.5678, 0, "1,235"}, {1234.5678, 3, "1,234.568"},
		{-98765.4321, 0, "-98,765"}, {-98765.4321, 3, "-98,765.432"},
		{0.5, 0, "0"}, {0.5, 3, "0.500"},
	}
	for _, c := range cases {
		if got := Grouped(c.in, c.decimals); got != c.want {
			t.Errorf("Grouped(%v, %d) = %s; want %s", c.in, c.decimals, got, c.want)
		}
	}
	for _, c := range []struct {
		in   int
		want string
	}{
		{0, "0"},
		{999, "999"},
		{1000, "1,000"},
		{1234567, "1,234,567"},
		{-4200, "-4,200"},
		{-100, "-100"},
		{-100000, "-100,000"},
		{1000000000000, "1,000,000,000,000"},
	} {
		if got := GroupedInt(c.in); got != c.want {
			t.Errorf("GroupedInt(%d) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	// orjson.dumps("a\x01\x1f\b\f\n\r\t\"\\\x7f\u2028é") from orjson 3.8.
	in := "a\x01\x1f\b\f\n\r\t\"\\\x7f\u2028é"
	want := "\"a\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\\x7f\u2028é\""
	if got := string(AppendJSONString(nil, in)); got != want {
		t.Errorf("AppendJSONString(%q) = %s; want %s", in, got, want)
	}
}
