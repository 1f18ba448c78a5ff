package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// choiceListValue appends comma-separated choices, normalised (lower
// case, "-" as "_"); the first Set replaces what a config file gave.
type choiceListValue[T ~string] struct {
	recorder
	p       *[]T
	changed bool
}

func (v *choiceListValue[T]) Set(s string) error {
	if !v.changed {
		*v.p, v.changed = nil, true
	}
	for _, e := range config.SplitList(s) {
		if e != "" {
			*v.p = append(*v.p, T(config.NormalizeChoice(e)))
		}
	}
	return nil
}

func (v *choiceListValue[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, e := range *v.p {
		parts[i] = string(e)
	}
	return strings.Join(parts, ",")
}
func (v *choiceListValue[T]) Type() string { return "list" }
