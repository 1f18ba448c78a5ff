package configfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// The artifacts keys of AIPerf 0.13's config v2 beyond the
// directory and the prefix, and the benchmark body's scenario lock.

// userFilesPath is where artifacts.user_files sits; its templates are
// rendered when the run starts (they see the run's names), not on load.
const userFilesPath = "benchmark.artifacts.user_files"

// UserFileNames are the names a user_files template may use besides
// variables:, filled in when the run starts (AIPerf's injected context).
var UserFileNames = []string{"epoch", "job_name", "namespace", "model", "endpoint_url", "artifact_dir"}

func compatFields() []field {
	return []field{
		{path: "benchmark.artifacts.summary", bind: func(t target) any { return &t.cfg.Artifacts.NoSummaryJSON }, conv: &summaryConv,
			doc: "Summary export formats: [json] (the default), or false to skip profile_export_aiperf.json (the CSV summary is written regardless)."},
		{path: userFilesPath, bind: func(t target) any { return &t.cfg.Artifacts.UserFiles }, conv: &userFilesConv,
			doc: "Files written into the artifact directory before the benchmark: [{path, format: json|yaml|text, content}]; Jinja templates in content see variables: and epoch, job_name, namespace, model, endpoint_url, artifact_dir."},
		{path: "benchmark.datasets.0.records", bind: func(t target) any { return &t.cfg.Dataset.InlineRecords }, conv: &inlineRecordsConv,
			doc: "type: file - the entries written in the config file instead of a path: a list, each item one line of the format's JSONL."},
	}
}

// formatList decodes AIPerf's `[format] | false` artifact switches: it
// reports whether the export is on.
func formatList(n *Node, only string) (on bool, msg string) {
	switch n.Kind {
	case Scalar:
		if b, ok := n.Value.(bool); ok && !b {
			return false, ""
		}
	case Seq:
		if len(n.Items) == 0 {
			return false, "the format list cannot be empty; use false to turn the export off"
		}
		for _, it := range n.Items {
			if s, _ := stringOf(it); s != only {
				return false, fmt.Sprintf("format %s is not available: only %q is written", describe(it), only)
			}
		}
		return true, ""
	}
	return false, fmt.Sprintf("must be [%s] or false, not %s", only, describe(n))
}

func formatListSchema(only string) map[string]any {
	return map[string]any{"oneOf": []any{
		map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"enum": []any{only}}},
		map[string]any{"const": false},
	}}
}

var (
	summaryConv = conv{
		decode: func(n *Node, dst any) string {
			on, msg := formatList(n, "json")
			if msg == "" {
				*dst.(*bool) = !on
			}
			return msg
		},
		encode: func(dst any) (any, bool) {
			if *dst.(*bool) {
				return false, true
			}
			return []any{"json"}, true
		},
		schema: formatListSchema("json"),
	}
	recordsConv = conv{
		decode: func(n *Node, dst any) string {
			on, msg := formatList(n, "jsonl")
			if msg != "" || on {
				return msg
			}
			lvl := dst.(*config.ExportLevel)
			if *lvl == config.ExportRaw {
				return "records: false with raw: true is not available here (the raw export comes with the records)"
			}
			*lvl = config.ExportSummary
			return ""
		},
		encode: func(dst any) (any, bool) {
			if *dst.(*config.ExportLevel) == config.ExportSummary {
				return false, true
			}
			return []any{"jsonl"}, true
		},
		schema: formatListSchema("jsonl"),
	}
	rawConv = conv{
		decode: func(n *Node, dst any) string {
			b, ok := n.Value.(bool)
			if n.Kind != Scalar || !ok {
				return "must be true or false, not " + describe(n)
			}
			lvl := dst.(*config.ExportLevel)
			switch {
			case !b:
				if *lvl == config.ExportRaw {
					*lvl = config.ExportRecords
				}
			case *lvl == config.ExportSummary:
				return "raw: true with records: false is not available here (the raw export comes with the records)"
			default:
				*lvl = config.ExportRaw
			}
			return ""
		},
		encode: func(dst any) (any, bool) {
			return *dst.(*config.ExportLevel) == config.ExportRaw, true
		},
		schema: map[string]any{"type": "boolean"},
	}
	userFilesConv = conv{
		decode: func(n *Node, dst any) string {
			if n.Kind == Null {
				*dst.(*[]config.UserFile) = nil
				return ""
			}
			if n.Kind != Seq {
				return "must be a list of {path, format, content}, not " + describe(n)
			}
			var files []config.UserFile
			var msgs []string
			for i, it := range n.Items {
				f, msg := userFile(it)
				if msg != "" {
					msgs = append(msgs, fmt.Sprintf("entry %d: %s", i, msg))
					continue
				}
				files = append(files, f)
			}
			if len(msgs) > 0 {
				return strings.Join(msgs, "; ")
			}
			*dst.(*[]config.UserFile) = files
			return ""
		},
		encode: func(dst any) (any, bool) {
			files := *dst.(*[]config.UserFile)
			if len(files) == 0 {
				return nil, false
			}
			out := make([]any, len(files))
			for i, f := range files {
				var content any
				_ = json.Unmarshal(f.Content, &content)
				out[i] = map[string]any{"path": f.Path, "format": f.Format, "content": content}
			}
			return out, true
		},
		schema: map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "required": []any{"path", "content"}, "additionalProperties": false,
			"properties": map[string]any{
				"path":    map[string]any{"type": "string"},
				"format":  map[string]any{"enum": []any{"json", "yaml", "text"}},
				"content": map[string]any{},
			},
		}},
	}
)

// userFile decodes one user_files entry; the format defaults as in AIPerf
// (text for a string, json otherwise) and must fit the content.
func userFile(n *Node) (config.UserFile, string) {
	var f config.UserFile
	if n.Kind != Map {
		return f, "must be a mapping {path, format, content}, not " + describe(n)
	}
	for _, k := range n.Keys {
		if !slices.Contains([]string{"path", "format", "content"}, k.Name) {
			return f, fmt.Sprintf("unknown key %q (path, format, content)", k.Name)
		}
	}
	path, ok := stringOf(n.Get("path"))
	if !ok {
		return f, "needs a path"
	}
	content := n.Get("content")
	if content == nil {
		return f, "needs content"
	}
	_, isString := content.Value.(string)
	isString = isString && content.Kind == Scalar
	format, _ := stringOf(n.Get("format"))
	switch {
	case format == "" && isString:
		format = "text"
	case format == "":
		format = "json"
	case (format == "json" || format == "yaml") && isString:
		return f, fmt.Sprintf("format %s needs structured content (a mapping, list or number), not a string; wrap it or use format: text", format)
	case format == "text" && !isString:
		return f, "format text needs string content, not " + describe(content)
	}
	f.Path, f.Format, f.Content = path, format, orderedJSON(content)
	return f, ""
}

// orderedJSON encodes n as JSON with its maps in file order.
func orderedJSON(n *Node) json.RawMessage {
	var b bytes.Buffer
	var walk func(*Node)
	walk = func(n *Node) {
		switch n.Kind {
		case Map:
			b.WriteByte('{')
			for i, k := range n.Keys {
				if i > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k.Name)
				b.Write(kb)
				b.WriteByte(':')
				walk(k.Value)
			}
			b.WriteByte('}')
		case Seq:
			b.WriteByte('[')
			for i, it := range n.Items {
				if i > 0 {
					b.WriteByte(',')
				}
				walk(it)
			}
			b.WriteByte(']')
		default:
			vb, err := json.Marshal(n.Interface())
			if err != nil {
				vb = []byte("null") // NaN or Inf
			}
			b.Write(vb)
		}
	}
	walk(n)
	return b.Bytes()
}

// checkUserFileTemplates reports the user_files templates that use a name
// neither variables: nor the run defines; they are rendered at run time.
func checkUserFileTemplates(n *Node, path string, vars map[string]any, ps *problems) {
	switch n.Kind {
	case Map:
		for _, k := range n.Keys {
			checkUserFileTemplates(k.Value, path+"."+k.Name, vars, ps)
		}
	case Seq:
		for i, it := range n.Items {
			checkUserFileTemplates(it, fmt.Sprintf("%s.%d", path, i), vars, ps)
		}
	case Scalar:
		s, ok := n.Value.(string)
		if !ok || !strings.Contains(s, "{{") && !strings.Contains(s, "{%") {
			return
		}
		for _, id := range identifiers(s) {
			if _, ok := vars[id]; !ok && !jinjaBuiltin(id) && !slices.Contains(UserFileNames, id) {
				ps.add(n.Pos, path, "template %q: undefined variable %q (define it under variables:, or use one of %s)",
					s, id, strings.Join(UserFileNames, ", "))
				return
			}
		}
	}
}

// seqDistConv decodes prompts.sequence_distribution: a list of {isl, osl,
// probability} with isl and osl a number or {mean, stddev} (AIPerf's
// isl_stddev and osl_stddev shorthands too); probabilities are percentages.
var seqDistConv = conv{
	decode: func(n *Node, dst any) string {
		if n.Kind != Seq || len(n.Items) == 0 {
			return "must be a non-empty list of {isl, osl, probability}, not " + describe(n)
		}
		var out []config.SeqDistEntry
		var msgs []string
		for i, it := range n.Items {
			e, msg := seqDistEntry(it)
			if msg != "" {
				msgs = append(msgs, fmt.Sprintf("entry %d: %s", i, msg))
				continue
			}
			out = append(out, e)
		}
		if len(msgs) > 0 {
			return strings.Join(msgs, "; ")
		}
		*dst.(*[]config.SeqDistEntry) = out
		return ""
	},
	encode: func(dst any) (any, bool) {
		es := *dst.(*[]config.SeqDistEntry)
		if len(es) == 0 {
			return nil, false
		}
		out := make([]any, len(es))
		for i, e := range es {
			out[i] = map[string]any{
				"isl": map[string]any{"mean": e.ISL, "stddev": e.ISLStddev},
				"osl": map[string]any{"mean": e.OSL, "stddev": e.OSLStddev}, "probability": e.Probability,
			}
		}
		return out, true
	},
	schema: map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
		"type": "object", "required": []any{"isl", "osl", "probability"}, "additionalProperties": false,
		"properties": map[string]any{
			"isl": map[string]any{}, "osl": map[string]any{},
			"isl_stddev": map[string]any{"type": "number", "minimum": 0}, "osl_stddev": map[string]any{"type": "number", "minimum": 0},
			"probability": map[string]any{"type": "number", "minimum": 0, "maximum": 100},
		},
	}},
}

func seqDistEntry(n *Node) (config.SeqDistEntry, string) {
	var e config.SeqDistEntry
	if n.Kind != Map {
		return e, "must be a mapping {isl, osl, probability}, not " + describe(n)
	}
	for _, k := range n.Keys {
		if !slices.Contains([]string{"isl", "osl", "isl_stddev", "osl_stddev", "probability"}, k.Name) {
			return e, fmt.Sprintf("unknown key %q (isl, osl, isl_stddev, osl_stddev, probability)", k.Name)
		}
	}
	for _, side := range []struct {
		key      string
		mean     *int
		stddev   *float64
		shortcut string
	}{{"isl", &e.ISL, &e.ISLStddev, "isl_stddev"}, {"osl", &e.OSL, &e.OSLStddev, "osl_stddev"}} {
		v := n.Get(side.key)
		if v == nil {
			return e, "needs " + side.key
		}
		d, msg := distribution(v, true)
		if msg != "" {
			return e, side.key + ": " + msg
		}
		m, ok := floatOf(d.Get("mean"))
		if !ok || m != math.Trunc(m) {
			return e, side.key + " must be a whole number of tokens"
		}
		*side.mean = int(m)
		if sd := d.Get("stddev"); sd != nil {
			if *side.stddev, ok = floatOf(sd); !ok {
				return e, side.key + ".stddev must be a number"
			}
		}
		if sd := n.Get(side.shortcut); sd != nil {
			if v.Kind != Scalar {
				return e, side.shortcut + " goes with a plain " + side.key + ", not a distribution"
			}
			if *side.stddev, ok = floatOf(sd); !ok {
				return e, side.shortcut + " must be a number"
			}
		}
	}
	p, ok := floatOf(n.Get("probability"))
	if !ok {
		return e, "needs a numeric probability (a percentage)"
	}
	e.Probability = p
	return e, ""
}

// inlineRecordsConv decodes a file dataset's records: a non-empty list of
// mappings, kept as JSON in file order.
var inlineRecordsConv = conv{
	decode: func(n *Node, dst any) string {
		if n.Kind == Map {
			return "records as a mapping of pools (random_pool) is not supported yet; use a directory path"
		}
		if n.Kind != Seq || len(n.Items) == 0 {
			return "must be a non-empty list of records, not " + describe(n)
		}
		out := make([]json.RawMessage, len(n.Items))
		for i, it := range n.Items {
			if it.Kind != Map {
				return fmt.Sprintf("record %d must be a mapping (one line of the format's JSONL), not %s", i, describe(it))
			}
			out[i] = orderedJSON(it)
		}
		*dst.(*[]json.RawMessage) = out
		return ""
	},
	encode: func(dst any) (any, bool) {
		rs := *dst.(*[]json.RawMessage)
		if len(rs) == 0 {
			return nil, false
		}
		out := make([]any, len(rs))
		for i, r := range rs {
			_ = json.Unmarshal(r, &out[i])
		}
		return out, true
	},
	schema: map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "object"}},
}
