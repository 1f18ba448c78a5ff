package configfile

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
)

// The config templates `aiperf config init --template` writes: AIPerf
// 0.13's bundled templates under the same names, each reduced to its
// configuration and @template metadata (scripts/aiperf-compat.sh, step
// configs, regenerates them with strip_template.py, which checks that each
// loads to exactly AIPerf's data; TestBundledTemplates checks they load here).
//
//go:embed templates/*.yaml
var bundledFS embed.FS

// Template is one bundled config template and its metadata.
type Template struct {
	Name        string // file stem: "minimal", "goodput_slo"
	Title       string
	Description string
	Category    string
	Tags        []string
	Difficulty  string
	Features    []string
	Content     string // the YAML, metadata header included
}

// TemplateCategories is AIPerf's category order for --list.
var TemplateCategories = []string{
	"Getting Started", "Load Testing", "Datasets", "Sweep & Multi-Run", "Advanced", "Multimodal", "Specialized Endpoints",
}

// Templates returns every bundled template, by category (AIPerf's order)
// then name, as AIPerf lists them.
func Templates() []Template {
	entries, err := bundledFS.ReadDir("templates")
	if err != nil {
		panic(err) // embedded at build time
	}
	out := make([]Template, 0, len(entries))
	for _, e := range entries {
		data, err := bundledFS.ReadFile("templates/" + e.Name())
		if err != nil {
			panic(err)
		}
		out = append(out, parseTemplate(strings.TrimSuffix(e.Name(), ".yaml"), string(data)))
	}
	rank := func(c string) int {
		if i := slices.Index(TemplateCategories, c); i >= 0 {
			return i
		}
		return len(TemplateCategories)
	}
	slices.SortStableFunc(out, func(a, b Template) int {
		if d := rank(a.Category) - rank(b.Category); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// parseTemplate reads the "# key: value" metadata lines at the top.
func parseTemplate(name, content string) Template {
	t := Template{Name: name, Content: content}
	for _, line := range strings.Split(content, "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "title":
			t.Title = v
		case "description":
			t.Description = v
		case "category":
			t.Category = v
		case "tags":
			t.Tags = splitCSV(v)
		case "difficulty":
			t.Difficulty = v
		case "features":
			t.Features = splitCSV(v)
		}
	}
	return t
}

func splitCSV(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// LookupTemplate returns the bundled template name; the error lists them.
func LookupTemplate(name string) (Template, error) {
	all := Templates()
	names := make([]string, len(all))
	for i, t := range all {
		if t.Name == name {
			return t, nil
		}
		names[i] = t.Name
	}
	slices.Sort(names)
	msg := fmt.Sprintf("unknown template %q", name)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return Template{}, fmt.Errorf("%s; available templates: %s", msg, strings.Join(names, ", "))
}

// TemplatesInCategory returns the templates whose category contains
// category, case-insensitively (all for ""), as AIPerf's --category.
func TemplatesInCategory(category string) []Template {
	c := strings.ToLower(category)
	return slices.DeleteFunc(Templates(), func(t Template) bool { return !strings.Contains(strings.ToLower(t.Category), c) })
}

// SearchTemplates returns the templates whose name, title, description,
// category, tags or features contain query (case-insensitive), name
// matches first, as AIPerf's --search.
func SearchTemplates(query string) []Template {
	q := strings.ToLower(query)
	var byName, other []Template
	for _, t := range Templates() {
		fields := append([]string{t.Name, t.Title, t.Description, t.Category}, append(t.Tags, t.Features...)...)
		if !slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(strings.ToLower(f), q) }) {
			continue
		}
		if strings.Contains(strings.ToLower(t.Name), q) {
			byName = append(byName, t)
		} else {
			other = append(other, t)
		}
	}
	return append(byName, other...)
}

// WithOverrides returns the template's YAML with the model and endpoint URL
// replaced ("" keeps the template's), on the keys the template declares as
// AIPerf's `config init --model/--url` does: benchmark.model or models
// (a list), benchmark.endpoint.url or urls (a list); every bundled
// template declares both. The rest of the file, comments and layout
// included, is left as it is.
func (t Template) WithOverrides(model, url string) (string, error) {
	if model == "" && url == "" {
		return t.Content, nil
	}
	f, err := parser.ParseBytes([]byte(t.Content), parser.ParseComments)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name, err)
	}
	has := func(path string) bool {
		p, err := yaml.PathString(path)
		if err != nil {
			return false
		}
		_, err = p.FilterFile(f)
		return err == nil
	}
	set := func(single, plural, value string) error {
		var path string
		var v any
		switch {
		case has(single):
			path, v = single, value
		default:
			path, v = plural, []string{value}
		}
		if !has(path) {
			return fmt.Errorf("the template declares neither %s nor %s", strings.TrimPrefix(single, "$."), strings.TrimPrefix(plural, "$."))
		}
		p, err := yaml.PathString(path)
		if err != nil {
			return err
		}
		node, err := yaml.ValueToNode(v)
		if err != nil {
			return err
		}
		return p.ReplaceWithNode(f, node)
	}
	if model != "" {
		if err := set("$.benchmark.model", "$.benchmark.models", model); err != nil {
			return "", fmt.Errorf("template %s: --model: %w", t.Name, err)
		}
	}
	if url != "" {
		if err := set("$.benchmark.endpoint.url", "$.benchmark.endpoint.urls", url); err != nil {
			return "", fmt.Errorf("template %s: --url: %w", t.Name, err)
		}
	}
	out := f.String()
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, nil
}
