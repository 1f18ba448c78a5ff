package configfile

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// MaxFileSize bounds a config file; larger files are refused unread.
const MaxFileSize = 4 << 20

// Options are the outside inputs of loading a config file.
type Options struct {
	// LookupEnv reads an environment variable for ${VAR} substitution;
	// nil means no variable is set.
	LookupEnv func(string) (string, bool)
}

// File is a loaded config v2 file. It keeps the envelope after
// environment substitution and shorthand normalisation but before
// templates are rendered (the "raw envelope"), so that each sweep
// variation renders its own templates. Every configuration it produces -
// the base one (Apply) and each variation's (Variations) - is derived
// from that one envelope, so a CLI override written into it (Override)
// reaches all of them.
type File struct {
	name  string
	warns []string
	raw   *Node
	rows  []field
	trie  *trie
	sweep *sweepSpec
}

// Load reads and checks the config file at path (a regular file reached
// without symbolic links; see userfile); see Parse.
func Load(path string, opts Options) (*File, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("config file %s: larger than %d bytes", path, MaxFileSize)
	}
	return Parse(path, data, opts)
}

// Parse parses a config v2 document named name and checks it: YAML
// syntax, environment variables, the envelope and body keys (unknown keys
// get a "did you mean" hint and a line:column), value types, templates
// and the sweep definition. It returns every problem found, joined; each
// is a *Problem.
func Parse(name string, data []byte, opts Options) (*File, error) {
	ps := &problems{file: name}
	root, err := parseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	canonicalKeys(root, "")
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	substituteEnv(root, "", lookup, ps)
	if root.Kind == Map {
		normalizeBody(root.Get("benchmark"), ps)
		if runs := root.Get("sweep").Get("runs"); runs != nil && runs.Kind == Seq {
			for _, r := range runs.Items {
				normalizeBody(r.Get("benchmark"), ps)
			}
		}
	}
	rows := fields()
	f := &File{name: name, raw: root, rows: rows, trie: buildTrie(rows)}
	if err := ps.err(); err != nil {
		return nil, err
	}
	// The sweep's problems and the body's are independent: report both.
	if root.Kind == Map {
		f.sweep = parseSweep(root.Get("sweep"), ps)
	}
	// Decode the base once, onto the defaults, to report value problems.
	cfg := config.Defaults()
	dps := &problems{file: name}
	lower(render(f.raw, dps), f.trie, target{cfg: &cfg}, dps)
	if err := errors.Join(append(ps.list, dps.list...)...); err != nil {
		return nil, err
	}
	f.warns = dps.warns
	return f, nil
}

// Warnings lists the keys the file sets that are accepted for AIPerf
// compatibility but have no effect here, one message each.
func (f *File) Warnings() []string { return f.warns }

// Name is the file's name as given to Load or Parse.
func (f *File) Name() string { return f.name }

// decode renders env and decodes it onto cfg.
func (f *File) decode(env *Node, cfg *config.Config) error {
	ps := &problems{file: f.name}
	rendered := render(env, ps)
	lower(rendered, f.trie, target{cfg: cfg}, ps)
	return ps.err()
}

// Apply decodes the file's base configuration (no sweep applied) onto
// cfg: every key the file sets replaces the field in cfg; the others stay.
func (f *File) Apply(cfg *config.Config) error {
	if err := f.decode(f.raw, cfg); err != nil {
		return err
	}
	f.applySearch(cfg)
	return nil
}

// FlagPaths maps each `aiperf profile` flag (canonical name) that has a
// config-file equivalent to its dot path from the envelope root.
func FlagPaths() map[string]string {
	m := map[string]string{}
	for _, r := range fields() {
		for _, fl := range splitFlags(r.flag) {
			if _, ok := m[fl]; !ok {
				m[fl] = r.path
			}
		}
	}
	return m
}

// Override writes the values of the given explicitly set flags, read
// from cfg (the configuration the command line produced), into the raw
// envelope at their dot paths, so that the base configuration and every
// sweep variation - which re-render the envelope - keep them. Flags
// without a config-file equivalent are ignored: they never appear in a
// file, so decoding the file onto cfg cannot change them.
func (f *File) Override(cfg *config.Config, flags []string) error {
	var errs []error
	byFlag := map[string][]*field{}
	for i := range f.rows {
		for _, fl := range splitFlags(f.rows[i].flag) {
			byFlag[fl] = append(byFlag[fl], &f.rows[i])
		}
	}
	t := target{cfg: cfg}
	for _, name := range flags {
		for _, row := range byFlag[name] {
			if err := f.overrideRow(row, t); err != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// overrideRow writes the row's current value in t into the envelope.
func (f *File) overrideRow(row *field, t target) error {
	encode := encodeValue
	if row.conv != nil && row.conv.encode != nil {
		encode = row.conv.encode
	}
	v, ok := encode(row.bind(t))
	if !ok {
		v = nil
	}
	return f.Set(row.path, v)
}

// Set writes value at a dot path from the envelope root into the raw
// envelope, creating missing phases, datasets and mappings on the way.
func (f *File) Set(path string, value any) error {
	if f.raw.Kind != Map {
		return fmt.Errorf("the config file is not a mapping")
	}
	return setPath(f.raw, path, FromValue(value), true)
}

// Raw returns a copy of the raw envelope as plain values, for display
// and tests.
func (f *File) Raw() map[string]any {
	m, _ := f.raw.Interface().(map[string]any)
	return m
}

// splitFlags splits a field's comma-separated flag names.
func splitFlags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
