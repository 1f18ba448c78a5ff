package config

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseSequenceDistribution(t *testing.T) {
	t.Parallel()
	two := []SeqDistEntry{{ISL: 256, OSL: 128, Probability: 40}, {ISL: 512, OSL: 256, Probability: 60}}
	withSD := []SeqDistEntry{
		{ISL: 256, ISLStddev: 10, OSL: 128, OSLStddev: 5, Probability: 40},
		{ISL: 512, ISLStddev: 20, OSL: 256, OSLStddev: 10, Probability: 60},
	}
	tests := []struct {
		in   string
		want []SeqDistEntry
		err  string // substring of the error; "" = must parse
	}{
		{"256,128:40;512,256:60", two, ""},
		{" 256 , 128 : 40 ; 512,256:60 ; ", two, ""},
		{"256|10,128|5:40;512|20,256|10:60", withSD, ""},
		{"128,64:100", []SeqDistEntry{{ISL: 128, OSL: 64, Probability: 100}}, ""},
		{"128,64:33.3333333;256,64:33.3333333;512,64:33.3333334", []SeqDistEntry{
			{ISL: 128, OSL: 64, Probability: 33.3333333}, {ISL: 256, OSL: 64, Probability: 33.3333333},
			{ISL: 512, OSL: 64, Probability: 33.3333334}}, ""},
		{"128|.5,64:100", []SeqDistEntry{{ISL: 128, ISLStddev: 0.5, OSL: 64, Probability: 100}}, ""},
		{"128,64:0;256,64:100", []SeqDistEntry{{ISL: 128, OSL: 64}, {ISL: 256, OSL: 64, Probability: 100}}, ""},
		{"[(256,128):40,(512,256):60]", two, ""},
		{"[ (256|10, 128|5) : 40 , (512|20,256|10):60 ]", withSD, ""},
		{`{"pairs":[{"isl":256,"osl":128,"prob":40},{"isl":512,"osl":256,"prob":60}]}`, two, ""},
		{`{"pairs":[{"isl":256,"isl_stddev":10,"osl":128,"osl_stddev":5,"prob":40},{"isl":512,"isl_stddev":20,"osl":256,"osl_stddev":10,"prob":60}]}`, withSD, ""},
		{`{"pairs":[{"isl":256.0,"osl":128,"prob":100}]}`, []SeqDistEntry{{ISL: 256, OSL: 128, Probability: 100}}, ""},

		{"", nil, "must not be empty"},
		{"   ", nil, "must not be empty"},
		{";;", nil, "no ISL,OSL:PROB pairs"},
		{"256,128:40", nil, "sum to 100"},
		{"256,128:0.4;512,256:0.6", nil, "sum to 100"},
		{"256,128:50;512,256:60", nil, "sum to 100"},
		{"256,128:150", nil, "[0, 100]"},
		{"0,128:100", nil, "ISL must be >= 1"},
		{"128,0:100", nil, "OSL must be >= 1"},
		{"256;128:100", nil, "is not ISL"},
		{"-256,128:100", nil, "is not ISL"},
		{"256,128", nil, "is not ISL"},
		{"256,128:1e2", nil, "is not ISL"},
		{"256,128:40;bogus", nil, "\"bogus\""},
		{"99999999999999999999,1:100", nil, "out of range"},
		{"[(256,128):40 junk (512,256):60]", nil, "junk"},
		{"[]", nil, "no (ISL,OSL):PROB pairs"},
		{"[(256,128):100", nil, "is not ISL"}, // no closing bracket: semicolon form
		{`{"pairs":[{"isl":256,"osl":128}]}`, nil, `missing "prob"`},
		{`{"pairs":[{"osl":128,"prob":100}]}`, nil, `missing "isl"`},
		{`{"pairs":[{"isl":256.5,"osl":128,"prob":100}]}`, nil, "whole number"},
		{`{"pairs":[{"isl":"256","osl":128,"prob":100}]}`, []SeqDistEntry{{ISL: 256, OSL: 128, Probability: 100}}, ""}, // AIPerf's int() reads strings too
		{`{"pairs":[{"isl":"x","osl":128,"prob":100}]}`, nil, "invalid JSON"},
		{`{"pairs":[{"isl":true,"osl":128,"prob":100}]}`, nil, "invalid JSON"},
		{`{"pairs":[]}`, nil, `"pairs" is empty`},
		{`{"pears":[]}`, nil, `needs a "pairs" list`},
		{`{"pairs":[{"isl":256,"osl":128,"prob":100}]} x`, nil, "invalid JSON"},
		{`{"pairs":[{"isl":256,"osl":128,"prob":100,"isl_stddev":-1}]}`, nil, "stddevs"},
		{`{`, nil, "invalid JSON"},
	}
	for _, tt := range tests {
		got, err := ParseSequenceDistribution(tt.in)
		if tt.err == "" {
			if err != nil {
				t.Errorf("ParseSequenceDistribution(%q) error %v", tt.in, err)
				continue
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSequenceDistribution(%q) = %+v; want %+v", tt.in, got, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseSequenceDistribution(%q) = %+v, %v; want an error containing %q", tt.in, got, err, tt.err)
		}
	}
}

func TestParseSequenceDistributionReportsEveryPair(t *testing.T) {
	t.Parallel()
	_, err := ParseSequenceDistribution("a,1:50;b,2:50")
	if err == nil || !strings.Contains(err.Error(), `"a,1:50"`) || !strings.Contains(err.Error(), `"b,2:50"`) {
		t.Fatalf("error %v; want both bad pairs named", err)
	}
}

func TestFormatSequenceDistributionRoundTrips(t *testing.T) {
	t.Parallel()
	in := "256|10,128|5:40;512,256|2.5:35;1024,512:25"
	e, err := ParseSequenceDistribution(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatSequenceDistribution(e); got != in {
		t.Fatalf("FormatSequenceDistribution = %q; want %q", got, in)
	}
}

func FuzzParseSequenceDistribution(f *testing.F) {
	for _, s := range []string{"256,128:40;512,256:60", "256|10,128|5:40;512|20,256|10:60", "[(256,128):40,(512,256):60]",
		`{"pairs":[{"isl":256,"isl_stddev":10,"osl":128,"osl_stddev":5,"prob":100}]}`, "1,1:100", "[", "{", ";", "1|1e999,1:100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseSequenceDistribution(s)
		if err != nil {
			if entries != nil {
				t.Fatalf("entries %v with error %v", entries, err)
			}
			return
		}
		if len(entries) == 0 {
			t.Fatalf("%q parsed to no entries", s)
		}
		total := 0.0
		for _, e := range entries {
			if e.ISL < 1 || e.OSL < 1 || !(e.Probability >= 0 && e.Probability <= 100) ||
				!(e.ISLStddev >= 0) || !(e.OSLStddev >= 0) || math.IsInf(e.ISLStddev, 0) || math.IsInf(e.OSLStddev, 0) {
				t.Fatalf("%q parsed to invalid entry %+v", s, e)
			}
			total += e.Probability
		}
		if math.Abs(total-100) > probabilityTolerance {
			t.Fatalf("%q: probabilities sum to %v", s, total)
		}
		// The canonical form reads back to the same entries.
		again, err := ParseSequenceDistribution(FormatSequenceDistribution(entries))
		if err != nil || !slices.Equal(again, entries) {
			t.Fatalf("%q: round trip %q = %+v, %v; want %+v", s, FormatSequenceDistribution(entries), again, err, entries)
		}
	})
}
