package public

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// pyStr renders a row value as Python's str() does, so prompts built from
// non-string columns read as AIPerf's: None, True/False, integers,
// floats in repr form (1.0, 1e-05, 1e+16) and lists/dicts in repr form.
func pyStr(v any) string { return pyfmt.Str(v) }

// pyFormat renders template as Python's str.format(**row): "{name}" is
// pyStr(row[name]), "{{" and "}}" are literal braces. A name the row
// lacks is an error, as Python's KeyError.
func pyFormat(template string, row map[string]any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch {
		case c == '{' && i+1 < len(template) && template[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(template) && template[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(template[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("prompt template: single '{' at offset %d", i)
			}
			field := template[i+1 : i+end]
			name, _, _ := strings.Cut(field, ":") // a format spec is ignored
			name, _, _ = strings.Cut(name, "!")
			v, ok := row[name]
			if !ok {
				return "", fmt.Errorf("prompt template field {%s}: the row has no column %q", field, name)
			}
			b.WriteString(pyStr(v))
			i += end
		case c == '}':
			return "", fmt.Errorf("prompt template: single '}' at offset %d", i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
