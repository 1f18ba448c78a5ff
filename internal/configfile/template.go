package configfile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ardanlabs/jinja"
)

// skipTemplate lists keys whose strings are templates for something else
// (request bodies) and are never rendered here.
func skipTemplate(key string) bool {
	return key == "template" || key == "body" || key == "payload_template"
}

// render returns a copy of the envelope with every {{ }} template in the
// body rendered over `variables:`, which are resolved first in dependency
// order. Rendered strings are coerced like environment values.
func render(env *Node, ps *problems) *Node {
	out := env.Clone()
	vars := resolveVariables(out.Get("variables"), ps)
	ctx := map[string]any{}
	for k, v := range vars {
		ctx[k] = v
	}
	ctx["variables"] = vars
	if len(vars) > 0 { // resolved, for the run-time templates (user_files)
		out.Set("variables", FromValue(vars))
	}
	for _, k := range out.Keys {
		if k.Name == "variables" || k.Name == "sweep" {
			continue
		}
		renderNode(k.Value, k.Name, ctx, ps)
	}
	if b := out.Get("benchmark"); b != nil {
		normalizeDistributions(b, ps)
	}
	return out
}

// resolveVariables renders the variables block in dependency order; a
// cycle or an undefined name is a problem.
func resolveVariables(v *Node, ps *problems) map[string]any {
	resolved := map[string]any{}
	if v == nil || v.Kind != Map {
		if v != nil && v.Kind != Null {
			ps.add(v.Pos, "variables", "must be a mapping of name to value")
		}
		return resolved
	}
	names := make([]string, len(v.Keys))
	for i, k := range v.Keys {
		names[i] = k.Name
	}
	pending := map[string][]string{}
	for _, k := range v.Keys {
		pending[k.Name] = refsIn(k.Value, names)
	}
	for len(pending) > 0 {
		var ready []string
		for name, deps := range pending {
			if len(deps) == 0 {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			var cyc []string
			for name := range pending {
				cyc = append(cyc, name)
			}
			slices.Sort(cyc)
			ps.add(v.Pos, "variables", "circular reference among variables: %s", strings.Join(cyc, ", "))
			return resolved
		}
		slices.Sort(ready)
		for _, name := range ready {
			n := v.Get(name).Clone()
			renderNode(n, "variables."+name, resolved, ps)
			resolved[name] = n.Interface()
			delete(pending, name)
			for other, deps := range pending {
				pending[other] = slices.DeleteFunc(deps, func(d string) bool { return d == name })
			}
		}
	}
	return resolved
}

// refsIn returns the names among candidates that templates in n use.
func refsIn(n *Node, candidates []string) []string {
	var out []string
	var walk func(*Node)
	walk = func(n *Node) {
		switch n.Kind {
		case Map:
			for _, k := range n.Keys {
				walk(k.Value)
			}
		case Seq:
			for _, it := range n.Items {
				walk(it)
			}
		case Scalar:
			if s, ok := n.Value.(string); ok && strings.Contains(s, "{{") {
				for _, id := range identifiers(s) {
					if slices.Contains(candidates, id) && !slices.Contains(out, id) {
						out = append(out, id)
					}
				}
			}
		}
	}
	walk(n)
	return out
}

// renderNode renders every template string under n in place.
func renderNode(n *Node, path string, ctx map[string]any, ps *problems) {
	if path == userFilesPath {
		checkUserFileTemplates(n, path, ctx, ps) // rendered when the run starts
		return
	}
	switch n.Kind {
	case Map:
		for _, k := range n.Keys {
			if skipTemplate(k.Name) {
				continue
			}
			renderNode(k.Value, path+"."+k.Name, ctx, ps)
		}
	case Seq:
		for i, it := range n.Items {
			seg := strconv.Itoa(i)
			if name, ok := stringOf(it.Get("name")); ok {
				seg = name
			}
			renderNode(it, path+"."+seg, ctx, ps)
		}
	case Scalar:
		s, ok := n.Value.(string)
		if !ok {
			return
		}
		v, msg := renderString(s, ctx)
		if msg != "" {
			ps.add(n.Pos, path, "%s", msg)
			n.Kind = broken
			return
		}
		n.Value = v
	}
}

// renderString renders one string; strings without template markers are
// returned as they are.
func renderString(s string, ctx map[string]any) (val any, msg string) {
	hasExpr, hasStmt := strings.Contains(s, "{{"), strings.Contains(s, "{%")
	if hasExpr && !strings.Contains(s, "}}") {
		return nil, fmt.Sprintf("template %q: '{{' has no closing '}}'", s)
	}
	if hasStmt && !strings.Contains(s, "%}") {
		return nil, fmt.Sprintf("template %q: '{%%' has no closing '%%}'", s)
	}
	if !hasExpr && !hasStmt {
		return s, ""
	}
	for _, id := range identifiers(s) {
		if _, ok := ctx[id]; !ok && !jinjaBuiltin(id) {
			return nil, fmt.Sprintf("template %q: undefined variable %q (define it under variables:)", s, id)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			val, msg = nil, fmt.Sprintf("template %q: %v", s, r)
		}
	}()
	t, err := jinja.Compile(s)
	if err != nil {
		return nil, fmt.Sprintf("template %q: %v", s, err)
	}
	out, err := t.Render(ctx)
	if err != nil {
		return nil, fmt.Sprintf("template %q: %v", s, err)
	}
	return coerce(out), ""
}

// jinjaBuiltin reports names a template may use without defining them.
func jinjaBuiltin(id string) bool {
	switch id {
	case "true", "false", "none", "True", "False", "None", "and", "or", "not", "in", "is",
		"if", "else", "elif", "endif", "for", "endfor", "set", "loop", "range", "namespace",
		"defined", "undefined":
		return true
	}
	return false
}

// identifiers returns the free names used inside the {{ }} and {% %}
// blocks of s: identifiers outside string literals that are not
// attributes (after '.'), filters or tests (after '|' or "is"), keyword
// arguments (before '=') or guarded by a default filter.
func identifiers(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "{{")
		j := strings.Index(s, "{%")
		start, closer := i, "}}"
		if i < 0 || (j >= 0 && j < i) {
			start, closer = j, "%}"
		}
		if start < 0 {
			return out
		}
		end := strings.Index(s[start+2:], closer)
		if end < 0 {
			return out
		}
		out = append(out, exprNames(s[start+2:start+2+end])...)
		s = s[start+2+end+2:]
	}
}

func exprNames(e string) []string {
	var out []string
	prev := byte(0) // last non-space character before the identifier
	prevWord := ""
	for i := 0; i < len(e); {
		c := e[i]
		switch {
		case c == '\'' || c == '"':
			i, prev = stringEnd(e, i), c
		case c == '_' || isLetter(c):
			j := identEnd(e, i)
			id := e[i:j]
			if prev != '.' && prev != '|' && prevWord != "is" && prevWord != "for" && !kwargOrDefaulted(e, j) {
				out = append(out, id)
			}
			prevWord, prev, i = id, 'a', j
		case c >= '0' && c <= '9':
			i, prev, prevWord = numberEnd(e, i), '0', ""
		case c == ' ' || c == '\t' || c == '\n':
			i++
		default:
			prev, prevWord = c, ""
			i++
		}
	}
	return out
}

// stringEnd is the index just past the string literal quoted at e[i]
// (backslash escapes skipped), or past the end when it is unterminated.
func stringEnd(e string, i int) int {
	q := e[i]
	j := i + 1
	for j < len(e) && e[j] != q {
		if e[j] == '\\' {
			j++
		}
		j++
	}
	return j + 1
}

func isIdentByte(c byte) bool { return c == '_' || isLetter(c) || (c >= '0' && c <= '9') }

// identEnd is the index just past the identifier starting at e[i].
func identEnd(e string, i int) int {
	for i < len(e) && isIdentByte(e[i]) {
		i++
	}
	return i
}

// numberEnd is the index just past the number literal starting at e[i],
// suffixes and attribute access included.
func numberEnd(e string, i int) int {
	for i < len(e) && (e[i] == '.' || isIdentByte(e[i])) {
		i++
	}
	return i
}

// kwargOrDefaulted reports whether the identifier ending at e[j] names a
// keyword argument ("f(x=1)") or is defaulted ("x | default(...)", which
// may use an undefined x): neither needs a definition.
func kwargOrDefaulted(e string, j int) bool {
	k := j
	for k < len(e) && e[k] == ' ' {
		k++
	}
	if k < len(e) && e[k] == '=' && (k+1 >= len(e) || e[k+1] != '=') {
		return true
	}
	rest := strings.TrimLeft(e[k:], " ")
	if !strings.HasPrefix(rest, "|") {
		return false
	}
	filter := strings.TrimLeft(rest[1:], " ")
	return strings.HasPrefix(filter, "default") || strings.HasPrefix(filter, "d(")
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
