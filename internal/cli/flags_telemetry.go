package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/option"
)

// funcValue is a flag whose value is applied by set; a set error is
// recorded as a problem of the flag.
type funcValue struct {
	recorder
	kind string // Type(); "string" when empty
	set  func(string) error
	val  string
}

func (v *funcValue) Set(s string) error {
	if err := v.set(s); err != nil {
		v.fail(err)
		return nil
	}
	v.val = s
	return nil
}
func (v *funcValue) String() string { return strings.TrimPrefix(v.val, option.BareValue) }
func (v *funcValue) Type() string {
	if v.kind == "" {
		return "string"
	}
	return v.kind
}
