package hf

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// UnmarshalJSON reads a decoder case stored as [tokens, text].
func (c *decoderCase) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &c.Tokens); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &c.Text)
}

type decoderCase struct {
	Tokens []string
	Text   string
}

// UnmarshalJSON reads a model case stored as [word, ids].
func (c *modelCase) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &c.Word); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &c.IDs)
}

type modelCase struct {
	Word string
	IDs  []int
}

// readGzipJSON decodes a gzipped JSON golden from testdata.
func readGzipJSON(tb testing.TB, name string, v any) {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
}

// goldenComponents is testdata/extra_components.golden.json.gz, written
// by scripts/hf-extra-testdata.py from the reference library.
type goldenComponents struct {
	Reference   string   `json:"reference"`
	Inputs      []string `json:"inputs"`
	Normalizers []struct {
		Spec    json.RawMessage `json:"spec"`
		Outputs []string        `json:"outputs"`
	} `json:"normalizers"`
	PreTokenizers []struct {
		Specs   []json.RawMessage `json:"specs"`
		Outputs [][]string        `json:"outputs"`
	} `json:"pre_tokenizers"`
	Decoders []struct {
		Spec  json.RawMessage `json:"spec"`
		Cases []decoderCase   `json:"cases"`
	} `json:"decoders"`
	Models []struct {
		File  string      `json:"file"`
		Cases []modelCase `json:"cases"`
	} `json:"models"`
	// Floats are [JSON text, the value the reference reads] pairs.
	Floats [][2]string `json:"floats"`
	// First says, per normalizer and input, whether a Metaspace with
	// prepend_scheme "first" prepends after that normalizer.
	First []struct {
		Spec      json.RawMessage `json:"spec"`
		Prepended []bool          `json:"prepended"`
	} `json:"first"`
}

var (
	extraOnce sync.Once
	extraData goldenComponents
)

// extraComponents loads the component golden once per test binary.
func extraComponents(tb testing.TB) *goldenComponents {
	tb.Helper()
	extraOnce.Do(func() { readGzipJSON(tb, "extra_components.golden.json.gz", &extraData) })
	if extraData.Reference == "" {
		tb.Fatal("extra_components.golden.json.gz did not load")
	}
	return &extraData
}

func TestExtraNormalizersMatchReference(t *testing.T) {
	g := extraComponents(t)
	for i, c := range g.Normalizers {
		t.Run(fmt.Sprintf("%d_%s", i, specType(c.Spec)), func(t *testing.T) {
			n, err := newNormalizer("normalizer", c.Spec)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for j, in := range g.Inputs {
				if got := n.normalize(in); got != c.Outputs[j] && bad < 5 {
					bad++
					t.Errorf("%s\nnormalize(%q)\n got %q\nwant %q", c.Spec, in, got, c.Outputs[j])
				}
			}
		})
	}
}

// preTokenizeChain runs s through pts in order, as a Sequence does.
func preTokenizeChain(pts []preTokenizer, s string) []string {
	words := []word{{text: s, first: true}}
	for _, p := range pts {
		words = p.preTokenize(nil, words)
	}
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, w.text)
	}
	return out
}

func TestExtraPreTokenizersMatchReference(t *testing.T) {
	g := extraComponents(t)
	for i, c := range g.PreTokenizers {
		var names []string
		var pts []preTokenizer
		for k, spec := range c.Specs {
			p, err := newPreTokenizer(fmt.Sprintf("pre_tokenizer.pretokenizers[%d]", k), spec)
			if err != nil {
				t.Fatal(err)
			}
			pts = append(pts, p)
			names = append(names, specType(spec))
		}
		t.Run(fmt.Sprintf("%d_%s", i, strings.Join(names, "+")), func(t *testing.T) {
			bad := 0
			for j, in := range g.Inputs {
				want := c.Outputs[j]
				if got := preTokenizeChain(pts, in); !slices.Equal(got, want) && bad < 5 {
					bad++
					t.Errorf("%s\npreTokenize(%q)\n got %q\nwant %q", c.Specs, in, got, want)
				}
			}
		})
	}
}

func TestExtraDecodersMatchReference(t *testing.T) {
	g := extraComponents(t)
	for i, c := range g.Decoders {
		t.Run(fmt.Sprintf("%d_%s", i, specType(c.Spec)), func(t *testing.T) {
			d, err := newDecoder("decoder", c.Spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range c.Cases {
				if got := strings.Join(d.decodeChain(slices.Clone(tc.Tokens)), ""); got != tc.Text {
					t.Errorf("%s\ndecode(%q)\n got %q\nwant %q", c.Spec, tc.Tokens, got, tc.Text)
				}
			}
		})
	}
}

func TestExtraModelsMatchReference(t *testing.T) {
	g := extraComponents(t)
	for _, c := range g.Models {
		t.Run(c.File, func(t *testing.T) {
			m := testModel(t, c.File)
			bad := 0
			for _, tc := range c.Cases {
				got := m.tokenize(nil, tc.Word)
				if !slices.Equal(got, tc.IDs) && bad < 5 {
					bad++
					t.Errorf("tokenize(%q)\n got %v\nwant %v", tc.Word, got, tc.IDs)
				}
			}
			if len(c.Cases) < 100 {
				t.Errorf("only %d cases", len(c.Cases))
			}
		})
	}
}

// testModel builds the model of one of the committed test tokenizers.
func testModel(tb testing.TB, file string) model {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	m, err := newModel("model", doc.Model)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// specType is a spec's "type", for test names.
func specType(raw json.RawMessage) string {
	var c component
	_ = json.Unmarshal(raw, &c)
	return c.Type
}

func TestParseSerdeFloatMatchesReference(t *testing.T) {
	g := extraComponents(t)
	if len(g.Floats) < 1000 {
		t.Fatalf("only %d float cases", len(g.Floats))
	}
	lossy := 0
	for _, c := range g.Floats {
		want, err := strconv.ParseFloat(c[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseSerdeFloat(c[0])
		if err != nil {
			t.Errorf("parseSerdeFloat(%q): %v", c[0], err)
			continue
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseSerdeFloat(%q) = %v (%#x), reference %v (%#x)", c[0], got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if exact, _ := strconv.ParseFloat(c[0], 64); exact != want {
			lossy++
		}
	}
	// The reference's parse is not correctly rounded: a sizeable share of
	// the cases must differ from strconv, or the test proves nothing.
	if lossy < 100 {
		t.Errorf("only %d cases where the reference differs from strconv.ParseFloat", lossy)
	}
}

func TestParseSerdeFloatRejects(t *testing.T) {
	for _, s := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "--1", "1x", "NaN", "1e400"} {
		if _, err := parseSerdeFloat(s); err == nil {
			t.Errorf("parseSerdeFloat(%q) succeeded", s)
		}
	}
}

func TestNormalizerKeepsStartMatchesReference(t *testing.T) {
	g := extraComponents(t)
	meta, err := newPreTokenizer("pre_tokenizer", []byte(`{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if !needsFirstFlag(meta) {
		t.Fatal("needsFirstFlag(Metaspace first) = false")
	}
	for i, c := range g.First {
		t.Run(fmt.Sprintf("%d_%s", i, specType(c.Spec)), func(t *testing.T) {
			n, err := newNormalizer("normalizer", c.Spec)
			if err != nil {
				t.Fatal(err)
			}
			for j, in := range g.Inputs {
				normalized := n.normalize(in)
				words := meta.preTokenize(nil, []word{{text: normalized, first: normalizerKeepsStart(n, in)}})
				got := len(words) > 0 && strings.HasPrefix(words[0].text, "▁")
				if got != c.Prepended[j] {
					t.Errorf("%s: input %q (normalized %q): prepended %v, reference %v", c.Spec, in, normalized, got, c.Prepended[j])
				}
			}
		})
	}
}
