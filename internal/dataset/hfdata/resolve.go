// Package hfdata finds and reads the rows of a HuggingFace hub dataset the
// way the Python datasets library does: it resolves a config (subset) and
// a split to data files from the repository's file list and its dataset
// card (README.md YAML "configs"), or from the library's default file
// layouts, and reads Parquet, JSON, JSON Lines and CSV rows as generic
// values.
package hfdata

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// Formats of data files, named after the datasets library's builders.
const (
	FormatParquet = "parquet"
	FormatJSON    = "json"
	FormatCSV     = "csv"
)

// formatOf maps a file extension to its format; "" for files that are
// not data.
func formatOf(name string) string {
	switch strings.ToLower(path.Ext(strings.TrimSuffix(name, ".gz"))) {
	case ".parquet":
		return FormatParquet
	case ".json", ".jsonl":
		return FormatJSON
	case ".csv", ".tsv":
		return FormatCSV
	}
	return ""
}

// ignored are repository files that are never data.
var ignored = map[string]bool{
	"README.md": true, "config.json": true, "dataset_info.json": true,
	"dataset_infos.json": true, "dummy_data.zip": true, "dataset_dict.json": true,
}

// Split is the resolved data of one config and split.
type Split struct {
	Config string   // the config name ("default" when the card declares none)
	Split  string   // the split name
	Format string   // one of the Format constants
	Files  []string // repository paths, sorted
}

// Config is one entry of a dataset card's "configs" list.
type Config struct {
	Name    string
	Default bool
	DataDir string
	// Splits maps a split to its data-file patterns.
	Splits map[string][]string
	// order is the splits in card order.
	order []string
}

// ParseCard reads the configs of a dataset card (README.md): the YAML
// front matter between the leading "---" lines. A card without front
// matter or without configs gives none.
func ParseCard(readme []byte) ([]Config, error) {
	readme = bytes.TrimPrefix(readme, []byte("\ufeff"))
	if !bytes.HasPrefix(readme, []byte("---")) {
		return nil, nil
	}
	rest := readme[3:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, errors.New("dataset card: unterminated YAML front matter")
	}
	var meta struct {
		Configs []map[string]any `yaml:"configs"`
	}
	if err := yaml.Unmarshal(rest[:end], &meta); err != nil {
		return nil, fmt.Errorf("dataset card YAML: %w", err)
	}
	var out []Config
	for i, c := range meta.Configs {
		cfg := Config{Name: "default", Splits: map[string][]string{}}
		if n, ok := c["config_name"].(string); ok && n != "" {
			cfg.Name = n
		}
		cfg.Default, _ = c["default"].(bool)
		cfg.DataDir, _ = c["data_dir"].(string)
		add := func(split string, v any) error {
			pats, err := patternList(v)
			if err != nil {
				return fmt.Errorf("dataset card: configs[%d] (%s) split %s: %w", i, cfg.Name, split, err)
			}
			if _, ok := cfg.Splits[split]; !ok {
				cfg.order = append(cfg.order, split)
			}
			cfg.Splits[split] = append(cfg.Splits[split], pats...)
			return nil
		}
		switch df := c["data_files"].(type) {
		case nil:
		case string:
			if err := add("train", df); err != nil {
				return nil, err
			}
		case []any:
			for _, e := range df {
				switch e := e.(type) {
				case string:
					if err := add("train", e); err != nil {
						return nil, err
					}
				case map[string]any:
					split, _ := e["split"].(string)
					if split == "" {
						split = "train"
					}
					if err := add(split, e["path"]); err != nil {
						return nil, err
					}
				default:
					return nil, fmt.Errorf("dataset card: configs[%d] (%s): data_files entry of type %T", i, cfg.Name, e)
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(df))
			for k := range df {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := add(k, df[k]); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("dataset card: configs[%d] (%s): data_files of type %T", i, cfg.Name, df)
		}
		out = append(out, cfg)
	}
	return out, nil
}

func patternList(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("path entry of type %T", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("path of type %T", v)
}

// Resolve finds the data files of config (empty: the card's default, or
// its only config, or "default") and split among files, the repository's
// file list, using the card's configs when it declares any and the
// default layouts otherwise. Files of several formats keep the most
// common one, as the datasets library does.
func Resolve(files []string, cards []Config, config, split string) (*Split, error) {
	data := make([]string, 0, len(files))
	for _, f := range files {
		if !ignored[path.Base(f)] && formatOf(f) != "" {
			data = append(data, f)
		}
	}
	var splits map[string][]string
	var order []string
	name := config
	switch {
	case len(cards) > 0:
		c, err := pickConfig(cards, config)
		if err != nil {
			return nil, err
		}
		name = c.Name
		splits, order = map[string][]string{}, c.order
		for s, pats := range c.Splits {
			if c.DataDir != "" {
				pp := make([]string, len(pats))
				for i, p := range pats {
					pp[i] = path.Join(c.DataDir, p)
				}
				pats = pp
			}
			splits[s] = resolve(data, pats)
		}
		if len(c.Splits) == 0 { // a config with only a data_dir
			dir := data[:0:0]
			for _, f := range data {
				if c.DataDir == "" || strings.HasPrefix(f, strings.TrimSuffix(c.DataDir, "/")+"/") {
					dir = append(dir, f)
				}
			}
			splits = defaultSplits(dir)
			order = slices.Sorted(maps.Keys(splits))
		}
	default:
		if config != "" && config != "default" {
			return nil, fmt.Errorf("config (subset) %q not found: the dataset declares no configs, only \"default\"", config)
		}
		name = "default"
		splits = defaultSplits(data)
		order = slices.Sorted(maps.Keys(splits))
	}
	got, ok := splits[split]
	if !ok {
		return nil, fmt.Errorf("split %q not found in config %q (available: %s)", split, name, strings.Join(order, ", "))
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("split %q of config %q matches no data file", split, name)
	}
	counts := map[string]int{}
	best := ""
	for _, f := range got {
		fm := formatOf(f)
		counts[fm]++
		if counts[fm] > counts[best] || (counts[fm] == counts[best] && fm < best) {
			best = fm
		}
	}
	keep := got[:0:0]
	for _, f := range got {
		if formatOf(f) == best {
			keep = append(keep, f)
		}
	}
	return &Split{Config: name, Split: split, Format: best, Files: keep}, nil
}

func pickConfig(cards []Config, name string) (Config, error) {
	names := make([]string, len(cards))
	for i, c := range cards {
		names[i] = c.Name
		if name != "" && c.Name == name {
			return c, nil
		}
	}
	if name != "" {
		return Config{}, fmt.Errorf("config (subset) %q not found (available: %s)", name, strings.Join(names, ", "))
	}
	for _, c := range cards {
		if c.Default {
			return c, nil
		}
	}
	if len(cards) == 1 {
		return cards[0], nil
	}
	for _, c := range cards {
		if c.Name == "default" {
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("the dataset has several configs; pick one with --hf-subset (available: %s)", strings.Join(names, ", "))
}
