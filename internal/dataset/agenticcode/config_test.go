package agenticcode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, json, want string }{
		{"not an object", `[1]`, "want a JSON object"},
		{"schema", `{"$id":"x","properties":{}}`, "JSON Schema"},
		{"mean below median", `{"generation_length":{"mean":100,"median":200}}`, "generation_length"},
		{"wrong type", `{"block_size":"big"}`, "block_size: want an integer"},
		{"block size", `{"block_size":0}`, "block_size: must be >= 1"},
		{"groups", `{"cache":{"layer1_5_groups":{"num_groups":0}}}`, "num_groups: must be in"},
		{"restart probability", `{"restart_initial_probability":1.5}`, "restart_initial_probability"},
		{"restart range", `{"restart_turn_range":[5,5]}`, "restart_turn_range"},
		{"turns with reset", `{"turns":{"mean":5,"median":4,"min":1,"max":9},"reset":{"base_probability":0.1,"context_scaling":1}}`, "turns mode cannot be combined with reset"},
		{"turns impossible", `{"turns":{"mean":50,"median":40,"min":40,"max":60},"max_prompt_tokens":40000}`, "impossible"},
		{"two problems", `{"block_size":0,"max_prompt_tokens":0}`, "max_prompt_tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse(%s) = %v; want an error with %q", c.json, err, c.want)
			}
		})
	}
	if _, _, err := Parse([]byte(`{"block_size":0,"max_prompt_tokens":0}`)); err == nil || !strings.Contains(err.Error(), "block_size") {
		t.Errorf("every problem is reported at once: %v", err)
	}
}

func TestParseIgnoresUnknownKeys(t *testing.T) {
	t.Parallel()
	_, ignored, err := Parse([]byte(`{"block_size":256,"comment":"x","cache":{"note":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ignored, ",") != "comment,cache.note" && strings.Join(ignored, ",") != "cache.note,comment" {
		t.Errorf("ignored = %v", ignored)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	if _, name, _, err := Load("default"); err != nil || name != "default" {
		t.Errorf("bundled default: %q, %v", name, err)
	}
	if _, _, _, err := Load("nope"); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("missing config: %v; want the bundled names listed", err)
	}
	p := filepath.Join(t.TempDir(), "small.json")
	os.WriteFile(p, []byte(`{"block_size":0}`), 0o644)
	if _, _, _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("bad file: %v; want the path named", err)
	}
}

func TestOverride(t *testing.T) {
	t.Parallel()
	c := Defaults()
	isl := 0
	if err := c.Override(&isl, nil); err == nil || !strings.Contains(err.Error(), "max_prompt_tokens") {
		t.Errorf("--max-isl 0: %v", err)
	}
	c = Defaults()
	osl := 0
	if err := c.Override(nil, &osl); err == nil || !strings.Contains(err.Error(), "--max-osl") {
		t.Errorf("--max-osl 0: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"turns":{"mean":3,"median":2,"min":1,"max":9}}`, `{"cache":{"layer2":{"mean":5,"median":4}}}`, `{"generation_params":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _, err := Parse(b)
		if err != nil {
			return
		}
		// A configuration that parses must synthesize without panicking.
		if c.MaxPromptTokens > 1<<22 || c.Cache.Layer1Tokens > 1<<22 || c.Cache.Layer15Tokens > 1<<22 {
			return
		}
		NewSynthesizer(c, 1).Sessions(2)
	})
}
