package config

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMagic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  int
		sweep bool
		bad   bool
	}{
		{"8", 8, false, false},
		{" 8 ", 8, false, false},
		{"8,", 8, false, false},
		{"8,16", 0, true, false},
		{"8, 16, 32", 0, true, false},
		{"x", 0, false, true},
		{"1.5", 0, false, true},
		{"", 0, false, true},
	}
	for _, tt := range tests {
		got, err := ParseMagicInt(tt.in)
		switch {
		case tt.sweep:
			if !errors.Is(err, ErrSweep) || !strings.Contains(err.Error(), "parameter sweeps are not supported yet") {
				t.Errorf("ParseMagicInt(%q) = %v, %v; want ErrSweep", tt.in, got, err)
			}
		case tt.bad:
			if err == nil || errors.Is(err, ErrSweep) {
				t.Errorf("ParseMagicInt(%q) = %v, %v; want a parse error", tt.in, got, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("ParseMagicInt(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if f, err := ParseMagicFloat("2.5"); err != nil || f != 2.5 {
		t.Errorf("ParseMagicFloat(2.5) = %v, %v", f, err)
	}
	if _, err := ParseMagicFloat("1,2"); !errors.Is(err, ErrSweep) {
		t.Errorf("ParseMagicFloat(1,2) = %v; want ErrSweep", err)
	}
	for _, s := range []string{"nan", "inf", "-Inf", "1e999"} {
		if _, err := ParseFloat(s); err == nil {
			t.Errorf("ParseFloat(%q) = nil error; want non-finite refused", s)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	t.Parallel()
	if f, err := ParseSeconds("inf", true); err != nil || !math.IsInf(f, 1) {
		t.Errorf("ParseSeconds(inf, true) = %v, %v; want +Inf", f, err)
	}
	if f, err := ParseSeconds("Infinity", true); err != nil || !math.IsInf(f, 1) {
		t.Errorf("ParseSeconds(Infinity, true) = %v, %v; want +Inf", f, err)
	}
	if _, err := ParseSeconds("inf", false); err == nil {
		t.Errorf("ParseSeconds(inf, false) = nil error; want refused")
	}
	if _, err := ParseSeconds("-inf", true); err == nil {
		t.Errorf("ParseSeconds(-inf, true) = nil error; want refused")
	}
	if f, err := ParseSeconds("2.5", true); err != nil || f != 2.5 {
		t.Errorf("ParseSeconds(2.5) = %v, %v", f, err)
	}
}

// render shows extra inputs as "k=v;k=v" for comparison.
func render(xs []ExtraInput) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.Key + "=" + string(x.Value)
	}
	return strings.Join(parts, ";")
}

func TestParseExtraInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		bad      bool
	}{
		{"temperature:0.7", `temperature=0.7`, false},
		{"max_tokens:100", `max_tokens=100`, false},
		{"ignore_eos:true", `ignore_eos=true`, false},
		{"ignore_eos:True", `ignore_eos=true`, false},
		{"x:None", `x=null`, false},
		{"x:null", `x=null`, false},
		{"model:gpt-4", `model="gpt-4"`, false},
		{"code:007", `code="007"`, false},
		{"empty:", `empty=""`, false},
		{"url:http://h:1/x", `url="http://h:1/x"`, false},
		{"a:1,b:two", `a=1;b="two"`, false},
		{` a : 1 , b : 2 `, `a=1;b=2`, false},
		{`stop:["a", "b"]`, `stop=["a","b"]`, false},
		{`opts:{"x": 1, "y": [1,2]},n:3`, `opts={"x":1,"y":[1,2]};n=3`, false},
		{`s:"a,b"`, `s="a,b"`, false},
		{`{"temperature": 0.7, "stop": ["x"], "n": {"a": true}}`, `temperature=0.7;stop=["x"];n={"a":true}`, false},
		{`{}`, ``, false},
		{"novalue", "", true},
		{":1", "", true},
		{"a:1,b", "", true},
		{`{"a":`, "", true},
		{`{"a":1} x`, "", true},
	}
	for _, tt := range tests {
		got, err := ParseExtraInputs(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseExtraInputs(%q) = %s; want an error", tt.in, render(got))
			}
			continue
		}
		if err != nil || render(got) != tt.want {
			t.Errorf("ParseExtraInputs(%q) = %s, %v; want %s", tt.in, render(got), err, tt.want)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []Header
		bad  bool
	}{
		{"X-A:1", []Header{{"X-A", "1"}}, false},
		{"Accept: text/html, application/json", []Header{{"Accept", "text/html, application/json"}}, false},
		{"Authorization:Bearer a:b", []Header{{"Authorization", "Bearer a:b"}}, false},
		{`{"X-A": "1", "X-B": 2, "X-C": true}`, []Header{{"X-A", "1"}, {"X-B", "2"}, {"X-C", "true"}}, false},
		{"nocolon", nil, true},
		{`{"X": {"a": 1}}`, nil, true},
		{`{"X": null}`, nil, true},
	}
	for _, tt := range tests {
		got, err := ParseHeaders(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseHeaders(%q) = %v; want an error", tt.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("ParseHeaders(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("ParseHeaders(%q)[%d] = %v; want %v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func TestParseGoodput(t *testing.T) {
	t.Parallel()
	got, err := ParseGoodput("request_latency:250  inter_token_latency:10.5")
	if err != nil || len(got) != 2 || got[0] != (GoodputSLO{"request_latency", 250}) || got[1] != (GoodputSLO{"inter_token_latency", 10.5}) {
		t.Fatalf("ParseGoodput = %v, %v", got, err)
	}
	for _, bad := range []string{"", "  ", "ttft", ":1", "ttft:", "ttft:x", "ttft:nan", "ttft:inf"} {
		if got, err := ParseGoodput(bad); err == nil {
			t.Errorf("ParseGoodput(%q) = %v; want an error", bad, got)
		}
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	got := SplitList(" a, b ,,c")
	if strings.Join(got, "|") != "a|b||c" {
		t.Errorf("SplitList = %q", got)
	}
}

func FuzzParseExtraInputs(f *testing.F) {
	for _, s := range []string{"a:1", `{"a":[1,2]}`, `s:"a,b",t:[1,{"x":"]"}]`, "x:True", `a:\"`, "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseExtraInputs(s)
		if err != nil {
			return
		}
		for _, x := range got {
			if !json.Valid(x.Value) {
				t.Fatalf("ParseExtraInputs(%q): value of %q is not valid JSON: %s", s, x.Key, x.Value)
			}
			if x.Key == "" && !strings.HasPrefix(strings.TrimSpace(s), "{") {
				t.Fatalf("ParseExtraInputs(%q): empty key accepted", s)
			}
		}
	})
}

func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"X-A:1", `{"a":"b"}`, "a:b:c", "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseHeaders(s)
		if err != nil {
			return
		}
		if len(got) == 0 && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			t.Fatalf("ParseHeaders(%q) returned no header and no error", s)
		}
	})
}

func FuzzParseGoodput(f *testing.F) {
	for _, s := range []string{"a:1 b:2", "x:1e3", "a:", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseGoodput(s)
		if err != nil {
			return
		}
		for _, g := range got {
			if g.Metric == "" || math.IsNaN(g.Value) || math.IsInf(g.Value, 0) {
				t.Fatalf("ParseGoodput(%q) = %v", s, got)
			}
		}
	})
}

func FuzzParseMagicInt(f *testing.F) {
	for _, s := range []string{"8", "8,16", " 1 ,", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ParseMagicInt(s)
		if err == nil && strings.Count(s, ",") > 0 && isList(s) {
			t.Fatalf("ParseMagicInt(%q) accepted a list", s)
		}
		if err != nil && !utf8.ValidString(err.Error()) {
			t.Fatalf("invalid error text")
		}
	})
}
