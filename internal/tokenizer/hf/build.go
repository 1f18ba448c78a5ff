package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// buildComponent decodes raw's "type" and hands raw to the builder of that
// type. A JSON null yields the zero T (no component).
func buildComponent[T any](path string, raw json.RawMessage, kinds map[string]builder[T]) (T, error) {
	var zero T
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return zero, nil
	}
	c, err := componentType(raw)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	b, ok := kinds[c.Type]
	if !ok {
		known := make([]string, 0, len(kinds))
		for k := range kinds {
			known = append(known, k)
		}
		slices.Sort(known)
		return zero, fmt.Errorf("%s: unsupported type %q (supported: %s)", path, c.Type, strings.Join(known, ", "))
	}
	return b(path, raw)
}
