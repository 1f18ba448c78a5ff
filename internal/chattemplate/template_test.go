package chattemplate

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// goldenNow is the instant gen_golden.py pins strftime_now to.
var goldenNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)

var update = flag.Bool("update", false, "regenerate testdata/golden with testdata/gen_golden.py (needs python3 with jinja2)")

// goldenCase is one entry of testdata/cases.json.
type goldenCase struct {
	Name                string            `json:"name"`
	Messages            []json.RawMessage `json:"messages"`
	Tools               json.RawMessage   `json:"tools"`
	AddGenerationPrompt bool              `json:"add_generation_prompt"`
}

func loadCases(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// decodeMessage turns a JSON message object into a Message, keeping the
// order of its other keys.
func decodeMessage(t *testing.T, raw json.RawMessage) Message {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("message %s is not an object", raw)
	}
	var m Message
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch key := kt.(string); key {
		case "role":
			if err := json.Unmarshal(v, &m.Role); err != nil {
				t.Fatal(err)
			}
		case "content":
			if err := json.Unmarshal(v, &m.Content); err != nil {
				t.Fatal(err)
			}
		default:
			m.Extra = append(m.Extra, Field{Key: key, Value: v})
		}
	}
	return m
}

// goldenConfigs maps each config name gen_golden.py renders to its
// tokenizer_config.json path.
func goldenConfigs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range testmodels.Names() {
		out[m] = filepath.Join(testmodels.Dir(t, m), "tokenizer_config.json")
	}
	extra, err := filepath.Glob(filepath.Join("testdata", "configs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range extra {
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = p
	}
	return out
}

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := regenerate(); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// TestGoldenRenderings renders every case with every config that has a
// template and compares, byte for byte, with Python jinja2 set up as HF
// sets it up.
func TestGoldenRenderings(t *testing.T) {
	cases := loadCases(t)
	rendered := 0
	for name, path := range goldenConfigs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range cases {
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				base := filepath.Join("testdata", "golden", name+"__"+c.Name)
				want, wantErr := readGolden(t, base)
				tmpl, err := cfg.Template(c.Tools != nil)
				if errors.Is(err, ErrNoTemplate) {
					if want != "" || wantErr != "" {
						t.Fatalf("no template in Go, but a golden exists at %s", base)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				in := Input{Tools: c.Tools, AddGenerationPrompt: c.AddGenerationPrompt, Now: func() time.Time { return goldenNow }}
				for _, m := range c.Messages {
					in.Messages = append(in.Messages, decodeMessage(t, m))
				}
				got, err := tmpl.Render(in)
				rendered++
				if wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), wantErr) {
						t.Fatalf("want an error containing %q, got %q, %v", wantErr, got, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("rendering differs from Python jinja2\n--- got\n%s\n--- want\n%s", got, want)
				}
			})
		}
	}
	if rendered == 0 {
		t.Fatal("no case was rendered")
	}
}

// readGolden returns the expected rendering or the expected error message
// stored at base (.txt or .err); both empty when neither file exists.
func readGolden(t *testing.T, base string) (text, errText string) {
	t.Helper()
	if b, err := os.ReadFile(base + ".txt"); err == nil {
		return string(b), ""
	}
	if b, err := os.ReadFile(base + ".err"); err == nil {
		return "", string(b)
	}
	return "", ""
}
