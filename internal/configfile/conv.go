package configfile

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
)

// conv decodes a node into a bound field when the field's Go type alone
// does not say how, and encodes the field back into a config-file value
// for CLI overrides.
type conv struct {
	// decode sets *dst from n; it returns a problem message, "" when fine.
	// dst is nil for fields without a binding (checks only).
	decode func(n *Node, dst any) string
	// encode returns the value to write into the file for dst; false when
	// the field is unset. nil = encodeValue.
	encode func(dst any) (any, bool)
	// schema is the JSON Schema of the key; nil = derived from dst's type.
	schema map[string]any
}

var (
	modelsConv = conv{
		decode: func(n *Node, dst any) string {
			var names []string
			switch n.Kind {
			case Scalar, Seq:
				return decodeValue(n, reflect.ValueOf(dst).Elem())
			case Map:
				items := n.Get("items")
				if items == nil || items.Kind != Seq {
					return "models as a mapping needs items: [{name: ...}]"
				}
				for _, it := range items.Items {
					name := it.Get("name")
					if it.Kind == Scalar {
						name = it
					}
					s, ok := stringOf(name)
					if !ok {
						return "each models.items entry needs a name"
					}
					names = append(names, s)
				}
			default:
				return "must be a model name or a list of names"
			}
			*dst.(*[]string) = names
			return ""
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			map[string]any{"type": "object", "properties": map[string]any{"items": map[string]any{"type": "array"}, "strategy": map[string]any{"type": "string"}}},
		}},
	}
	urlsConv   = normalizedURLsConv(config.NormalizeURL)
	choiceConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a string, not " + describe(n)
			}
			reflect.ValueOf(dst).Elem().SetString(config.NormalizeChoice(s))
			return ""
		},
	}
	durationConv = conv{
		decode: func(n *Node, dst any) string {
			v := reflect.ValueOf(dst).Elem()
			if n.Kind == Null {
				v.SetZero()
				return ""
			}
			f, msg := seconds(n, isSeconds(v.Type()))
			if msg != "" {
				return msg
			}
			setFloat(v, f)
			return ""
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "number", "minimum": 0},
			map[string]any{"type": "string", "description": "a duration such as \"90s\", \"5m\", \"1h30m\""},
		}},
	}
	headersConv = conv{
		decode: func(n *Node, dst any) string {
			if n.Kind != Map {
				return "must be a mapping of header name to value, not " + describe(n)
			}
			var hs []config.Header
			for _, k := range n.Keys {
				if k.Value.Kind != Scalar {
					return fmt.Sprintf("header %q must be a plain value", k.Name)
				}
				hs = append(hs, config.Header{Name: k.Name, Value: scalarText(k.Value.Value)})
			}
			*dst.(*[]config.Header) = hs
			return ""
		},
		encode: func(dst any) (any, bool) {
			hs := *dst.(*[]config.Header)
			if len(hs) == 0 {
				return nil, false
			}
			m := map[string]any{}
			for _, h := range hs {
				m[h.Name] = h.Value
			}
			return m, true
		},
		schema: map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}}},
	}
	extraConv = conv{
		decode: func(n *Node, dst any) string {
			if n.Kind != Map {
				return "must be a mapping of body field to value, not " + describe(n)
			}
			var xs []config.ExtraInput
			for _, k := range n.Keys {
				raw, err := json.Marshal(k.Value.Interface())
				if err != nil {
					return fmt.Sprintf("extra %q: %v", k.Name, err)
				}
				xs = append(xs, config.ExtraInput{Key: k.Name, Value: raw})
			}
			*dst.(*[]config.ExtraInput) = xs
			return ""
		},
		encode: func(dst any) (any, bool) {
			xs := *dst.(*[]config.ExtraInput)
			if len(xs) == 0 {
				return nil, false
			}
			m := map[string]any{}
			for _, x := range xs {
				var v any
				if err := json.Unmarshal(x.Value, &v); err != nil {
					v = string(x.Value)
				}
				m[x.Key] = jsonToPlain(v)
			}
			return m, true
		},
		schema: map[string]any{"type": "object"},
	}
	datasetTypeConv = conv{
		decode: func(n *Node, _ any) string {
			s, _ := stringOf(n)
			switch s {
			case "synthetic", "file", "public":
				return ""
			}
			msg := "must be synthetic, file or public, not " + describe(n)
			if h := suggest(s, []string{"synthetic", "file", "public"}); h != "" {
				msg += fmt.Sprintf("; did you mean %q?", h)
			}
			return msg
		},
		schema: map[string]any{"enum": []any{"synthetic", "file", "public"}},
	}
	mustBeFalseConv = conv{
		decode: func(n *Node, _ any) string {
			if b, ok := n.Value.(bool); !ok || b {
				return "the profiling phase is the one that is measured; exclude_from_results must be false"
			}
			return ""
		},
		schema: map[string]any{"type": "boolean"},
	}
	mustBeTrueConv = conv{
		decode: func(n *Node, _ any) string {
			if b, ok := n.Value.(bool); !ok || !b {
				return "warmup requests are never measured; exclude_from_results must be true"
			}
			return ""
		},
		schema: map[string]any{"type": "boolean"},
	}
	phaseTypeConv = conv{
		decode: func(n *Node, dst any) string {
			p, msg := phaseType(n)
			if msg != "" || dst == nil {
				return msg
			}
			cfg := dst.(*config.Config)
			if s, _ := stringOf(n); s == "fixed_schedule" {
				cfg.Replay.FixedSchedule = true
				return ""
			}
			cfg.Load.ArrivalPattern = p
			return ""
		},
		encode: func(dst any) (any, bool) {
			cfg := dst.(*config.Config)
			if cfg.Replay.FixedSchedule {
				return "fixed_schedule", true
			}
			switch p := cfg.Load.ArrivalPattern; p {
			case "":
				return nil, false
			case config.ArrivalConcurrencyBurst:
				return "concurrency", true
			default:
				return string(p), true
			}
		},
		schema: map[string]any{"enum": []any{"concurrency", "poisson", "gamma", "constant", "user_centric", "fixed_schedule"}},
	}
	// warmupTypeConv reads the warmup phase's type into its arrival
	// pattern ("" for concurrency).
	warmupTypeConv = conv{
		decode: func(n *Node, dst any) string {
			p, msg := phaseType(n)
			if s, _ := stringOf(n); msg == "" && (s == "fixed_schedule" || s == "user_centric") {
				msg = "a warmup phase is concurrency, poisson, gamma or constant, not " + s
			}
			if msg != "" {
				return msg
			}
			*dst.(*config.ArrivalPattern) = p
			return ""
		},
		encode: func(dst any) (any, bool) {
			p := *dst.(*config.ArrivalPattern)
			if p == "" {
				return nil, false
			}
			return string(p), true
		},
		schema: map[string]any{"enum": []any{"concurrency", "poisson", "gamma", "constant"}},
	}
	anyConv = conv{decode: func(*Node, any) string { return "" }, schema: map[string]any{}}

	artifactDirConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a path, not " + describe(n)
			}
			out := dst.(*config.Output)
			out.ArtifactDir, out.ArtifactDirExplicit = s, true
			return ""
		},
		encode: func(dst any) (any, bool) { return dst.(*config.Output).ArtifactDir, true },
		schema: map[string]any{"type": "string"},
	}
)

// phaseType maps a phase type to the arrival pattern it stands for.
func phaseType(n *Node) (config.ArrivalPattern, string) {
	s, _ := stringOf(n)
	switch s {
	case "concurrency":
		return "", ""
	case "poisson", "gamma", "constant":
		return config.ArrivalPattern(s), ""
	case "fixed_schedule":
		return "", ""
	case "user_centric":
		return "", ""
	case "agentic_replay":
		return "", "agentic_replay is a timing mode, not a phase type: keep the phase a concurrency phase and set timing_mode: agentic_replay"
	}
	msg := "must be concurrency, poisson, gamma, constant, user_centric or fixed_schedule, not " + describe(n)
	if h := suggest(s, []string{"concurrency", "poisson", "gamma", "constant", "user_centric", "fixed_schedule"}); h != "" {
		msg += fmt.Sprintf("; did you mean %q?", h)
	}
	return "", msg
}

// stringOf returns a string scalar.
func stringOf(n *Node) (string, bool) {
	if n == nil || n.Kind != Scalar {
		return "", false
	}
	s, ok := n.Value.(string)
	return s, ok
}

var secondsType = reflect.TypeFor[config.Seconds]()

func isSeconds(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t == secondsType
}

// seconds reads a number of seconds or a duration string ("90s", "5m");
// "inf" only when allowInf.
func seconds(n *Node, allowInf bool) (float64, string) {
	if n.Kind != Scalar {
		return 0, "must be a number of seconds or a duration such as \"90s\", not " + describe(n)
	}
	switch v := n.Value.(type) {
	case int64:
		return checkSeconds(float64(v))
	case float64:
		return checkSeconds(v)
	case string:
		s := strings.TrimSpace(v)
		if allowInf && strings.EqualFold(s, "inf") {
			return math.Inf(1), ""
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return checkSeconds(f)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Sprintf("invalid duration %q (use seconds or e.g. \"90s\", \"5m\", \"1h\")", s)
		}
		return checkSeconds(d.Seconds())
	}
	return 0, "must be a number of seconds, not " + describe(n)
}

func checkSeconds(f float64) (float64, string) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "must be a finite number of seconds"
	}
	if f < 0 {
		return 0, "must not be negative"
	}
	return f, ""
}

// setFloat stores f into v, allocating pointers as needed.
func setFloat(v reflect.Value, f float64) {
	for v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		v.Set(p)
		v = p.Elem()
	}
	v.SetFloat(f)
}

// decodeValue sets v from n by v's type: pointers (null leaves nil),
// strings (any scalar), bools, integers, finite floats, string lists (a
// single scalar is a one-element list) and maps of numbers.
func decodeValue(n *Node, v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if n.Kind == Null {
			v.SetZero()
			return ""
		}
		p := reflect.New(v.Type().Elem())
		if msg := decodeValue(n, p.Elem()); msg != "" {
			return msg
		}
		v.Set(p)
		return ""
	}
	switch v.Kind() {
	case reflect.String:
		if n.Kind != Scalar {
			return "must be a string, not " + describe(n)
		}
		v.SetString(scalarText(n.Value))
	case reflect.Bool:
		b, ok := n.Value.(bool)
		if n.Kind != Scalar || !ok {
			return "must be true or false, not " + describe(n)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, ok := intOf(n)
		if !ok {
			return "must be an integer, not " + describe(n)
		}
		v.SetInt(i)
	case reflect.Float64:
		f, ok := floatOf(n)
		if !ok {
			return "must be a number, not " + describe(n)
		}
		v.SetFloat(f)
	case reflect.Slice:
		items := n.Items
		switch n.Kind {
		case Scalar:
			items = []*Node{n}
		case Seq:
		default:
			return "must be a list, not " + describe(n)
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if msg := decodeValue(it, s.Index(i)); msg != "" {
				return fmt.Sprintf("item %d: %s", i, msg)
			}
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != Map {
			return "must be a mapping, not " + describe(n)
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Keys))
		for _, k := range n.Keys {
			e := reflect.New(v.Type().Elem()).Elem()
			if msg := decodeValue(k.Value, e); msg != "" {
				return fmt.Sprintf("%s: %s", k.Name, msg)
			}
			m.SetMapIndex(reflect.ValueOf(k.Name).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	default:
		return fmt.Sprintf("cannot hold a value of Go type %s", v.Type())
	}
	return ""
}

// intOf reads an integer scalar; a float with an integral value counts
// (false for a missing node).
func intOf(n *Node) (int64, bool) {
	if n == nil || n.Kind != Scalar {
		return 0, false
	}
	switch x := n.Value.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

// floatOf reads a finite number scalar (false for a missing node).
func floatOf(n *Node) (float64, bool) {
	if n == nil || n.Kind != Scalar {
		return 0, false
	}
	switch x := n.Value.(type) {
	case int64:
		return float64(x), true
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x, true
		}
	}
	return 0, false
}

// encodeValue returns *dst as a config-file value; false for nil
// pointers. Infinite seconds become "inf".
func encodeValue(dst any) (any, bool) {
	v := reflect.ValueOf(dst).Elem()
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int64:
		return v.Int(), true
	case reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 1) {
			return "inf", true
		}
		return f, true
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			x, _ := encodeValue(v.Index(i).Addr().Interface())
			out[i] = x
		}
		return out, true
	case reflect.Map:
		if v.Len() == 0 {
			return nil, false
		}
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			x, _ := encodeValue(ptrTo(v.MapIndex(k)))
			out[k.String()] = x
		}
		return out, true
	}
	return nil, false
}

func ptrTo(v reflect.Value) any {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface()
}

// jsonToPlain turns decoded JSON numbers into int64 where integral.
func jsonToPlain(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case []any:
		for i := range x {
			x[i] = jsonToPlain(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jsonToPlain(x[k])
		}
	}
	return v
}

// normalizedURLsConv decodes a URL or a list of URLs, each through norm.
func normalizedURLsConv(norm func(string) string) conv {
	return conv{
		decode: func(n *Node, dst any) string {
			p := dst.(*[]string)
			if msg := decodeValue(n, reflect.ValueOf(p).Elem()); msg != "" {
				return msg
			}
			for i, u := range *p {
				(*p)[i] = norm(u)
			}
			return ""
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}},
	}
}
