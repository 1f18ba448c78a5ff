package hfdata

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pat, path string
		want      bool
	}{
		{"data/train-*", "data/train-00000-of-00001.parquet", true},
		{"data/train-*", "data/test-00000-of-00001.parquet", false},
		{"data/train-*", "x/data/train-0.parquet", false},
		{"**/train[-._ 0-9]*", "train.csv", true},
		{"**/train[-._ 0-9]*", "a/b/train_1.jsonl", true},
		{"**/train[-._ 0-9]*", "trainer.csv", false},
		{"**/*[-._ 0-9]test[-._ 0-9]*", "data/my-test.json", true},
		{"sharegpt4o/train-*", "sharegpt4o/train-00000-of-00003.parquet", true},
		{"clean/test/*", "clean/test/0000.parquet", true},
		{"clean/test/*", "clean/test/sub/0000.parquet", false},
		{"clean/test/**", "clean/test/sub/0000.parquet", true},
		{"**", "a/b.parquet", true},
		{"**", ".hidden/b.parquet", false},
		{".hidden/*", ".hidden/b.parquet", true},
		{"data/[!t]*", "data/v.parquet", true},
		{"data/[!t]*", "data/t.parquet", false},
		{"test.jsonl", "test.jsonl", true},
	} {
		if got := match(c.pat, c.path); got != c.want {
			t.Errorf("match(%q, %q) = %v; want %v", c.pat, c.path, got, c.want)
		}
	}
}

func TestDefaultSplits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files []string
		want  map[string][]string
	}{
		{"sharded", []string{"README.md", "data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet", "data/test-00000-of-00001.parquet"},
			map[string][]string{"train": {"data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"}, "test": {"data/test-00000-of-00001.parquet"}}},
		{"file names", []string{"train.jsonl", "test.jsonl", "validation.jsonl"},
			map[string][]string{"train": {"train.jsonl"}, "test": {"test.jsonl"}, "validation": {"validation.jsonl"}}},
		{"dir names", []string{"data/train/a.parquet", "data/test/b.parquet"},
			map[string][]string{"train": {"data/train/a.parquet"}, "test": {"data/test/b.parquet"}}},
		{"one file is train", []string{"mmstar.parquet"}, map[string][]string{"train": {"mmstar.parquet"}}},
	} {
		files := c.files
		if c.name == "sharded" {
			files = files[1:] // Resolve drops README.md before defaultSplits
		}
		if got := defaultSplits(files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: defaultSplits = %v; want %v", c.name, got, c.want)
		}
	}
}

const gsm8kCard = `---
language:
- en
configs:
- config_name: main
  data_files:
  - split: train
    path: main/train-*
  - split: test
    path: main/test-*
- config_name: socratic
  data_files:
  - split: train
    path: socratic/train-*
  - split: test
    path: socratic/test-*
---
# GSM8K
`

func TestResolveWithCard(t *testing.T) {
	t.Parallel()
	cards, err := ParseCard([]byte(gsm8kCard))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{".gitattributes", "README.md", "main/test-00000-of-00001.parquet", "main/train-00000-of-00001.parquet",
		"socratic/test-00000-of-00001.parquet", "socratic/train-00000-of-00001.parquet"}
	s, err := Resolve(files, cards, "main", "test")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != FormatParquet || !reflect.DeepEqual(s.Files, []string{"main/test-00000-of-00001.parquet"}) || s.Config != "main" {
		t.Errorf("Resolve(main, test) = %+v", s)
	}
	for _, c := range []struct{ config, split, want string }{
		{"", "test", "several configs"},
		{"nope", "test", `config (subset) "nope" not found (available: main, socratic)`},
		{"main", "validation", `split "validation" not found in config "main" (available: train, test)`},
	} {
		if _, err := Resolve(files, cards, c.config, c.split); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resolve(%q, %q) error = %v; want %q", c.config, c.split, err, c.want)
		}
	}
}

func TestResolveWithoutCard(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "test.jsonl"}
	s, err := Resolve(files, nil, "", "test")
	if err != nil || s.Format != FormatJSON || !reflect.DeepEqual(s.Files, []string{"test.jsonl"}) {
		t.Fatalf("Resolve = %+v, %v", s, err)
	}
	if _, err := Resolve(files, nil, "main", "test"); err == nil {
		t.Error("a named config of a card-less dataset resolved")
	}
}

func TestParseCardForms(t *testing.T) {
	t.Parallel()
	card := "---\nconfigs:\n- config_name: a\n  data_files: a.csv\n- config_name: b\n  default: true\n  data_files:\n    test: [b1.json, b2.json]\n- config_name: c\n  data_dir: cdir\n---\n"
	cards, err := ParseCard([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 3 || !reflect.DeepEqual(cards[0].Splits, map[string][]string{"train": {"a.csv"}}) ||
		!cards[1].Default || !reflect.DeepEqual(cards[1].Splits["test"], []string{"b1.json", "b2.json"}) || cards[2].DataDir != "cdir" {
		t.Fatalf("ParseCard = %+v", cards)
	}
	s, err := Resolve([]string{"b1.json", "b2.json", "a.csv"}, cards, "", "test")
	if err != nil || s.Config != "b" || len(s.Files) != 2 {
		t.Fatalf("default config: %+v, %v", s, err)
	}
	s, err = Resolve([]string{"cdir/test-x.parquet", "cdir/train-x.parquet", "other/train.parquet"}, cards, "c", "train")
	if err != nil || !reflect.DeepEqual(s.Files, []string{"cdir/train-x.parquet"}) {
		t.Fatalf("data_dir config: %+v, %v", s, err)
	}
	if _, err := ParseCard([]byte("---\nconfigs: [\n")); err == nil {
		t.Error("bad YAML parsed")
	}
	if got, err := ParseCard([]byte("# no front matter")); err != nil || got != nil {
		t.Errorf("card without front matter = %v, %v", got, err)
	}
}
