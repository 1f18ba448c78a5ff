// Package template implements the template endpoint: the request body is
// a Jinja template rendered with the turn's inputs, for custom APIs whose
// body no other endpoint writes. The template is a named one (nv-embedqa),
// a template file, or the template itself, from the config file's
// endpoint.template.body or --extra-inputs payload_template:<...>;
// responses are read by the JMESPath response_field, or auto-detected.
//
// Rendering follows AIPerf, which renders with Jinja2 and autoescaping on:
// a plain {{ value }} is HTML-escaped (so a quote in a prompt cannot break
// the JSON), while {{ value|tojson }} and |safe are not.
package template

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/ardanlabs/jinja"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Named are the templates known by name.
var Named = map[string]string{
	"nv-embedqa": `{"text": {{ texts|tojson }}}`,
}

// Template is the template endpoint. It is safe for concurrent use.
type Template struct {
	tpl    *jinja.Template
	source string // the template text
	origin string // where it came from, for errors
	x      *endpoint.Extractor
	// hidden are extra inputs configuring the endpoint rather than the body
	// (payload_template, response_field), not sent.
	hidden map[string]bool
}

var _ endpoint.Endpoint = (*Template)(nil)

// ErrNoTemplate is returned when no template was configured.
var ErrNoTemplate = errors.New("the template endpoint needs a payload template: --extra-inputs payload_template:<name, file or template> " +
	"or endpoint.template.body in a config file")

// New builds the endpoint from the configured template. A file template
// is read with s.ReadFile (the safe reader, which refuses symbolic links
// and devices); a string that names no existing file is the template
// itself. A template that does not compile, or a response_field that is
// not valid JMESPath, is an error.
func New(s endpoint.Settings) (endpoint.Endpoint, error) {
	source, field := s.TemplateBody, s.TemplateResponseField
	hidden := map[string]bool{}
	if source == "" {
		source, _ = s.ExtraString("payload_template")
		field, _ = s.ExtraString("response_field")
		hidden["payload_template"], hidden["response_field"] = true, true
	}
	if source == "" {
		return nil, ErrNoTemplate
	}
	origin := "inline template"
	if named, ok := Named[source]; ok {
		origin, source = "named template "+source, named
	} else if isFile(source) {
		if s.ReadFile == nil {
			return nil, fmt.Errorf("template file %s: no file reader", source)
		}
		b, err := s.ReadFile(source)
		if err != nil {
			return nil, fmt.Errorf("template file: %w", err)
		}
		origin, source = "template file "+source, string(b)
	}
	tpl, err := jinja.Compile(autoescape(source))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	if field == "text" { // AIPerf's default: auto-detect
		field = ""
	}
	x, err := endpoint.NewExtractor(field, true)
	if err != nil {
		return nil, err
	}
	return &Template{tpl: tpl, source: source, origin: origin, x: x, hidden: hidden}, nil
}

// isFile reports whether s names an existing path (not following a final
// symbolic link, so that the safe reader refuses it with a clear error
// rather than the name being taken for a template).
func isFile(s string) bool {
	if strings.ContainsAny(s, "{}\n") {
		return false
	}
	_, err := os.Lstat(s)
	return err == nil
}

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (*Template) Metadata() endpoint.Metadata {
	return endpoint.FreeForm("template", "Custom request bodies from a Jinja template (named, a file, or inline) rendered with the "+
		"turn's texts, images, audios, videos, query, passages, model, max_tokens and stream; responses "+
		"are read by response_field (JMESPath) or auto-detected.")
}

// AppendPayload renders the template for t, which must give a JSON
// object, then merges the extra inputs (not payload_template and
// response_field, which configure the endpoint) and the turn's own extra
// fields.
func (e *Template) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	out, err := e.tpl.RenderValues(variables(t, o))
	if err != nil {
		return dst, fmt.Errorf("%s: %w", e.origin, err)
	}
	body, err := endpoint.ParseObject([]byte(out))
	if err != nil {
		return dst, fmt.Errorf("%s did not render a JSON object (%v): %.100s", e.origin, err, out)
	}
	if err := body.Merge(o.Extra, func(x endpoint.ExtraInput) bool { return !x.Turn && e.hidden[x.Key] }); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// ParseResponse reads a body or event with the response_field query, or
// by auto-detection when there is none. A query that matches nothing
// gives no content (so a typo cannot pass for empty answers).
func (e *Template) ParseResponse(data []byte) (record.Parsed, error) { return e.x.ParseResponse(data) }

// variables are AIPerf's template variables for turn t.
func variables(t *dataset.Turn, o *endpoint.Options) map[string]jinja.Value {
	texts, textsBy := named(t.Texts, t.TextNames)
	images, imagesBy := named(t.Images, nil)
	audios, audiosBy := named(t.Audios, nil)
	videos, videosBy := named(t.Videos, nil)
	queries := textsBy["query"]
	passages := textsBy["passages"]
	if len(passages) == 0 {
		passages = textsBy["passage"]
	}
	model := t.Model
	if model == "" {
		model = o.Model
	}
	var maxTokens, role any
	if t.MaxTokens > 0 {
		maxTokens = t.MaxTokens
	}
	if t.Role != "" {
		role = t.Role
	}
	turn := map[string]any{
		"texts": texts, "images": images, "audios": audios, "videos": videos,
		"model": nilIfEmpty(t.Model), "max_tokens": maxTokens, "role": role,
	}
	v := map[string]any{
		"texts": texts, "images": images, "audios": audios, "videos": videos,
		"text": firstOf(texts), "image": firstOf(images), "audio": firstOf(audios), "video": firstOf(videos),
		"queries": list(queries), "passages": list(passages),
		"query": firstOf(queries), "passage": firstOf(passages),
		"texts_by_name": textsBy, "images_by_name": imagesBy, "audios_by_name": audiosBy, "videos_by_name": videosBy,
		"model": model, "max_tokens": maxTokens, "role": role,
		"turn": turn, "turns": []any{turn}, "request_info": map[string]any{"turns": []any{turn}},
		"stream": o.Streaming,
	}
	vals := make(map[string]jinja.Value, len(v)+1)
	for k, x := range v {
		vals[k] = jinja.FromGoValue(x)
	}
	vals[escapeFunc] = jinja.NewCallable(escapeFunc, escapeValue)
	return vals
}

// named returns the values and, by name, the values of named entries
// (AIPerf's extract_named_contents).
func named(values, names []string) ([]string, map[string][]string) {
	all := []string{}
	by := map[string][]string{}
	for i, s := range values {
		all = append(all, s)
		if i < len(names) && names[i] != "" {
			by[names[i]] = append(by[names[i]], s)
		}
	}
	return all, by
}

func list(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func firstOf(ss []string) any {
	if len(ss) == 0 {
		return nil
	}
	return ss[0]
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// escapeFunc is the callable autoescape wraps output expressions in; the
// name cannot collide with a template variable AIPerf defines.
const escapeFunc = "__aiperf_autoescape"

// escapeValue converts a value to text as Jinja2 prints it and escapes it
// as markupsafe does (& < > " ').
func escapeValue(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 1 {
		return jinja.Value{}, errors.New("autoescape takes one value")
	}
	v := args[0]
	var s string
	switch {
	case v.IsString():
		s = v.AsString()
	case v.IsUndefined():
		s = ""
	default:
		s = v.String()
	}
	return jinja.NewString(htmlEscaper.Replace(s)), nil
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// safeFilter matches an output expression whose last filter makes it
// markup Jinja2 prints as it is (tojson, safe); escapeFilter one that
// escapes it itself (e, escape), which the autoescape call replaces.
var (
	safeFilter   = regexp.MustCompile(`\|\s*(tojson|safe)\s*(\(.*\))?\s*$`)
	escapeFilter = regexp.MustCompile(`\|\s*(e|escape)\s*$`)
)

// autoescape rewrites every {{ expr }} of src so that it prints
// __aiperf_autoescape(expr) unless its last filter is tojson or safe,
// which is what Jinja2's autoescaping does to the template's output.
// Statements, comments and {% raw %} blocks are left alone.
func autoescape(src string) string {
	var b strings.Builder
	for {
		i := strings.Index(src, "{{")
		raw := strings.Index(src, "{% raw %}")
		if raw >= 0 && (i < 0 || raw < i) {
			end := strings.Index(src[raw:], "{% endraw %}")
			if end < 0 {
				b.WriteString(src)
				return b.String()
			}
			end += raw + len("{% endraw %}")
			b.WriteString(src[:end])
			src = src[end:]
			continue
		}
		if i < 0 {
			b.WriteString(src)
			return b.String()
		}
		b.WriteString(src[:i])
		j := closing(src[i+2:])
		if j < 0 {
			b.WriteString(src[i:])
			return b.String()
		}
		inner := src[i+2 : i+2+j]
		src = src[i+2+j+2:]
		open, close := "{{", "}}"
		if strings.HasPrefix(inner, "-") || strings.HasPrefix(inner, "+") {
			open, inner = "{{"+inner[:1], inner[1:]
		}
		if strings.HasSuffix(inner, "-") || strings.HasSuffix(inner, "+") {
			close, inner = inner[len(inner)-1:]+"}}", inner[:len(inner)-1]
		}
		expr := strings.TrimSpace(inner)
		switch {
		case expr == "" || safeFilter.MatchString(expr):
			b.WriteString(open + inner + close)
		default:
			if loc := escapeFilter.FindStringIndex(expr); loc != nil {
				expr = strings.TrimSpace(expr[:loc[0]])
			}
			b.WriteString(open + " " + escapeFunc + "((" + expr + ")) " + close)
		}
	}
}

// closing returns the index of the "}}" ending an expression that starts
// at s[0], skipping string literals; -1 when there is none.
func closing(s string) int {
	var quote byte
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case quote != 0:
			if c == '\\' {
				k++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '}' && k+1 < len(s) && s[k+1] == '}':
			return k
		}
	}
	return -1
}
