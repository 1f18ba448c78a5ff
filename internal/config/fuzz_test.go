package config

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The fuzz targets below cover every command-line value parser of this
// package that parse_test.go does not (ParseExtraInputs, ParseHeaders,
// ParseGoodput and ParseMagicInt are fuzzed there). Each checks the
// parser's documented invariant, not only that it does not panic.

var numberSeeds = []string{"", "0", "-1", " 42 ", "1e308", "1e309", "-1e309", "NaN", "nan", "inf", "+Inf",
	"-inf", "Infinity", "0x1p-2", "1_000", "9223372036854775807", "9223372036854775808", "8,16", "8,", ",", "1.5"}

func FuzzParseNumbers(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseFloat(s); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseFloat(%q) = %v; must be finite", s, v)
		}
		if v, err := ParseMagicFloat(s); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseMagicFloat(%q) = %v; must be finite", s, v)
		}
		for _, allowInf := range []bool{false, true} {
			v, err := ParseSeconds(s, allowInf)
			if err != nil {
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, -1) || (math.IsInf(v, 1) && !allowInf) {
				t.Fatalf("ParseSeconds(%q, %v) = %v", s, allowInf, v)
			}
		}
		n, err := ParseInt(s)
		n64, err64 := ParseInt64(s)
		if (err == nil) != (err64 == nil) || int64(n) != n64 {
			t.Fatalf("ParseInt(%q) = %d, %v but ParseInt64 = %d, %v", s, n, err, n64, err64)
		}
	})
}

func FuzzSecondsJSON(f *testing.F) {
	for _, s := range []string{`1.5`, `"inf"`, `"Infinity"`, `"-inf"`, `"nan"`, `1e999`, `null`, `"3"`, `[]`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s Seconds
		if err := s.UnmarshalJSON([]byte(in)); err != nil {
			return
		}
		v := float64(s)
		if math.IsNaN(v) || math.IsInf(v, -1) {
			t.Fatalf("UnmarshalJSON(%s) = %v", in, v)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Seconds(%v) does not marshal: %v", v, err)
		}
		var back Seconds
		if err := json.Unmarshal(out, &back); err != nil || back != s {
			t.Fatalf("round trip of %v through %s gave %v, %v", v, out, back, err)
		}
	})
}

func FuzzURLs(f *testing.F) {
	for _, s := range []string{"localhost:8000", "http://u:p@h:1/x", "https://a@b@c/d?e@f", "u:p@h", "", "://@",
		"http://[::1]:80", "a,b,,c", " http://x/ "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := NormalizeURL(s); NormalizeURL(n) != n {
			t.Fatalf("NormalizeURL is not idempotent on %q: %q then %q", s, n, NormalizeURL(n))
		}
		if parts := SplitList(s); len(parts) != strings.Count(s, ",")+1 {
			t.Fatalf("SplitList(%q) has %d parts", s, len(parts))
		}
		r := RedactURL(s)
		if RedactURL(r) != r {
			t.Fatalf("RedactURL is not idempotent on %q: %q then %q", s, r, RedactURL(r))
		}
		// Whatever precedes the last '@' of the authority is userinfo and
		// is replaced; nothing else changes.
		scheme, rest := "", s
		if k := strings.Index(s, "://"); k >= 0 {
			scheme, rest = s[:k+3], s[k+3:]
		}
		authority := rest
		if k := strings.IndexAny(rest, "/?#"); k >= 0 {
			authority = rest[:k]
		}
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			if want := scheme + Redacted + rest[at:]; r != want {
				t.Fatalf("RedactURL(%q) = %q; want %q", s, r, want)
			}
		} else if r != s {
			t.Fatalf("RedactURL(%q) = %q changed a URL without userinfo", s, r)
		}
	})
}

func FuzzShowable(f *testing.F) {
	for _, s := range []string{"Authorization Bearer x", `{"X-Api-Key": [1]}`, "Content-Type json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ParseHeaders(s)
		if err == nil || showable(s) {
			return
		}
		// A value that may hold a credential is never repeated in full.
		if len(strings.TrimSpace(s)) > 8 && strings.Contains(err.Error(), strings.TrimSpace(s)) {
			t.Fatalf("ParseHeaders(%q) error repeats the value: %v", s, err)
		}
	})
}
