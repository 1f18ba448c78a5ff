package configfile

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	envRef      = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}`)
	wholeEnvRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*(?::[^}]*)?\}$`)
	openEnvRef  = regexp.MustCompile(`\$\{[^}\n]*$`)
)

// substituteEnv replaces ${VAR} (required) and ${VAR:default} in every
// string scalar of n, in place. A string that is exactly one reference
// takes the type its value reads as (true/false, integer, number). It
// runs before templates, so an environment value may hold a template.
func substituteEnv(n *Node, path string, getenv func(string) (string, bool), ps *problems) {
	switch n.Kind {
	case Map:
		for _, k := range n.Keys {
			substituteEnv(k.Value, childPath(path, k.Name), getenv, ps)
		}
	case Seq:
		for i, it := range n.Items {
			substituteEnv(it, path+"."+strconv.Itoa(i), getenv, ps)
		}
	case Scalar:
		s, ok := n.Value.(string)
		if !ok || !strings.Contains(s, "${") {
			return
		}
		failed := false
		out := envRef.ReplaceAllStringFunc(s, func(m string) string {
			sub := envRef.FindStringSubmatch(m)
			if v, ok := getenv(sub[1]); ok {
				return v
			}
			if strings.Contains(m, ":") {
				return sub[2]
			}
			ps.add(n.Pos, path, "environment variable %s is not set (write ${%s:default} to make it optional)", sub[1], sub[1])
			failed = true
			return m
		})
		if failed {
			return
		}
		if openEnvRef.MatchString(out) {
			ps.add(n.Pos, path, "unterminated ${ in %q", s)
			return
		}
		if wholeEnvRef.MatchString(s) {
			n.Value = coerce(out)
			return
		}
		n.Value = out
	}
}

// coerce reads a substituted or rendered string as a bool, an integer or
// a number when it is one, as AIPerf does.
func coerce(s string) any {
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(strings.ToLower(s), "ni") {
		return f
	}
	return s
}
