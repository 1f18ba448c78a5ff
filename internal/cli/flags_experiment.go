package cli

import (
	"fmt"
	"strconv"
)

// boolPtrValue sets an optional bool; invert makes it the --no- form.
type boolPtrValue struct {
	recorder
	p      **bool
	invert bool
}

func (v *boolPtrValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.fail(fmt.Errorf("invalid boolean %q (use true or false)", s))
		return nil
	}
	b = b != v.invert
	*v.p = &b
	return nil
}

func (v *boolPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.FormatBool(**v.p != v.invert)
}
func (v *boolPtrValue) Type() string     { return "bool" }
func (v *boolPtrValue) IsBoolFlag() bool { return true }

// negBoolValue is the --no- form of a plain bool.
type negBoolValue struct{ boolValue }

func (v *negBoolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.fail(fmt.Errorf("invalid boolean %q (use true or false)", s))
		return nil
	}
	*v.p = !b
	return nil
}
func (v *negBoolValue) String() string { return strconv.FormatBool(!*v.p) }
