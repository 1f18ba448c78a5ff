package config

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Artifacts are AIPerf's artifact options beyond the directory, the file
// prefix and the export level (Output): outputs.json, the summary JSON
// switch and the user's templated files (config v2's artifacts section).
type Artifacts struct {
	// ExportOutputsJSON writes outputs.json, the generated text of every
	// request (--export-outputs-json, artifacts.export_outputs_json).
	ExportOutputsJSON bool `json:"export_outputs_json,omitzero"`
	// NoSummaryJSON skips profile_export_aiperf.json (artifacts.summary:
	// false); the CSV summary is written regardless, as in AIPerf.
	NoSummaryJSON bool `json:"no_summary_json,omitzero"`
	// UserFiles are written into the artifact directory before the
	// benchmark starts (artifacts.user_files), their Jinja templates
	// rendered then.
	UserFiles []UserFile `json:"user_files,omitempty"`
	// Variables are the config file's resolved variables:, the context
	// of the user_files templates besides the run's own names.
	Variables map[string]any `json:"-"`
}

// UserFile is one artifacts.user_files entry.
type UserFile struct {
	// Path is relative to the artifact directory; subdirectories are made.
	Path string `json:"path"`
	// Format is json, yaml or text.
	Format string `json:"format"`
	// Content is the file's templated value: a string for text, any JSON
	// value for json and yaml. String leaves are Jinja templates.
	Content json.RawMessage `json:"content"`
}

// UserFileFormats are the accepted UserFile formats.
func UserFileFormats() []string { return []string{"json", "yaml", "text"} }

func (c *Config) validateArtifacts(p *problems) {
	a := &c.Artifacts
	for i, f := range a.UserFiles {
		where := "artifacts.user_files[" + strconv.Itoa(i) + "]"
		switch {
		case f.Path == "":
			p.add(where, "path must not be empty")
		case strings.ContainsFunc(f.Path, func(r rune) bool { return r < 32 || r == 0x7f }):
			p.add(where, "path %q contains control characters", f.Path)
		case strings.HasPrefix(f.Path, "/"):
			p.add(where, "absolute path %q rejected: paths are relative to the artifact directory", f.Path)
		case slices.Contains(strings.Split(f.Path, "/"), ".."):
			p.add(where, "path %q rejected: '..' segments are not allowed", f.Path)
		}
		if !slices.Contains(UserFileFormats(), f.Format) {
			p.add(where, "format %q: want json, yaml or text", f.Format)
		}
	}
}
