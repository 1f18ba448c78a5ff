package cli

import (
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// numListValue sets a list of numbers, comma-separated or by repeating the
// flag; the first Set replaces the default. A bad element is recorded as a
// problem of the flag.
type numListValue[T any] struct {
	recorder
	p       *[]T
	parse   func(string) (T, error)
	format  func(T) string
	changed bool
}

// floatList is a numListValue of finite floats.
func floatList(r recorder, p *[]float64) *numListValue[float64] {
	return &numListValue[float64]{recorder: r, p: p, parse: config.ParseFloat, format: formatFloat}
}

// intList is a numListValue of integers.
func intList(r recorder, p *[]int) *numListValue[int] {
	return &numListValue[int]{recorder: r, p: p, format: strconv.Itoa, parse: func(s string) (int, error) {
		n, err := config.ParseInt64(s)
		return int(n), err
	}}
}

func (v *numListValue[T]) Set(s string) error {
	if !v.changed {
		*v.p, v.changed = []T{}, true
	}
	for _, e := range config.SplitList(s) {
		x, err := v.parse(e)
		if err != nil {
			v.fail(err)
			return nil
		}
		*v.p = append(*v.p, x)
	}
	return nil
}

func (v *numListValue[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		parts[i] = v.format(x)
	}
	return strings.Join(parts, ",")
}
func (v *numListValue[T]) Type() string { return "list" }
