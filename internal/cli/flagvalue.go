package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// The pflag.Value types below bind profile flags to config.Config fields.
// They are lenient on purpose: Set never returns an error, because pflag
// stops at the first one and we want to report every problem of a command
// line at once. A value that does not parse is recorded in a shared
// problem list (with the flag name) and leaves its field untouched.

// problemList collects usage problems in the order they are found.
type problemList struct {
	errs []error
	// sweeps are the magic-list flags given a comma list, in order (see
	// sweepflags.go).
	sweeps []sweepList
}

// add records err, attributed to flag ("--name").
func (p *problemList) add(flag string, err error) {
	p.errs = append(p.errs, &config.FieldError{Flag: flag, Problem: err.Error(), Err: err})
}

// recorder is embedded in every value: where problems go and which flag
// they belong to.
type recorder struct {
	flag  string
	probs *problemList
}

func (r recorder) fail(err error) { r.probs.add(r.flag, err) }

// stringValue sets a string.
type stringValue struct {
	recorder
	p *string
}

func (v *stringValue) Set(s string) error { *v.p = s; return nil }
func (v *stringValue) String() string     { return *v.p }
func (v *stringValue) Type() string       { return "string" }

// secretValue sets a config.Secret; String never shows the secret.
type secretValue struct {
	recorder
	p *config.Secret
}

func (v *secretValue) Set(s string) error { *v.p = config.Secret(s); return nil }
func (v *secretValue) String() string     { return "" }
func (v *secretValue) Type() string       { return "string" }

// boolValue sets a bool; a bare flag means true.
type boolValue struct {
	recorder
	p *bool
}

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.fail(fmt.Errorf("invalid boolean %q (use true or false)", s))
		return nil
	}
	*v.p = b
	return nil
}
func (v *boolValue) String() string   { return strconv.FormatBool(*v.p) }
func (v *boolValue) Type() string     { return "bool" }
func (v *boolValue) IsBoolFlag() bool { return true }

// listValue appends comma-separated elements to a string list. The first
// Set replaces the default, later ones append, so "-u a -u b" and "-u a,b"
// both give [a b].
type listValue struct {
	recorder
	p       *[]string
	changed bool
	// each transforms an element (URL normalisation); nil keeps it.
	each func(string) string
}

func (v *listValue) Set(s string) error {
	if !v.changed {
		*v.p = nil
		v.changed = true
	}
	for _, e := range config.SplitList(s) {
		if v.each != nil {
			e = v.each(e)
		}
		*v.p = append(*v.p, e)
	}
	return nil
}
func (v *listValue) String() string { return strings.Join(*v.p, ",") }
func (v *listValue) Type() string   { return "list" }

// intValue sets an int; magic values refuse sweep lists.
type intValue struct {
	recorder
	p     *int
	magic bool
}

func (v *intValue) Set(s string) error {
	n, err := v.magicInt(s, v.magic)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = n
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "int" }

// intPtrValue sets an optional int (nil = not given).
type intPtrValue struct {
	recorder
	p     **int
	magic bool
}

func (v *intPtrValue) Set(s string) error {
	n, err := v.magicInt(s, v.magic)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = &n
	return nil
}

func (v *intPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.Itoa(**v.p)
}
func (v *intPtrValue) Type() string { return "int" }

// int64PtrValue sets an optional int64.
type int64PtrValue struct {
	recorder
	p **int64
}

func (v *int64PtrValue) Set(s string) error {
	n, err := config.ParseInt64(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = &n
	return nil
}

func (v *int64PtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.FormatInt(**v.p, 10)
}
func (v *int64PtrValue) Type() string { return "int" }

// floatValue sets a finite float64; magic values refuse sweep lists.
type floatValue struct {
	recorder
	p     *float64
	magic bool
}

func (v *floatValue) Set(s string) error {
	f, err := v.magicFloat(s, v.magic)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = f
	return nil
}
func (v *floatValue) String() string { return formatFloat(*v.p) }
func (v *floatValue) Type() string   { return "float" }

// floatPtrValue sets an optional finite float64.
type floatPtrValue struct {
	recorder
	p     **float64
	magic bool
}

func (v *floatPtrValue) Set(s string) error {
	f, err := v.magicFloat(s, v.magic)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = &f
	return nil
}

func (v *floatPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return formatFloat(**v.p)
}
func (v *floatPtrValue) Type() string { return "float" }

// secondsPtrValue sets optional seconds that may be "inf".
type secondsPtrValue struct {
	recorder
	p **config.Seconds
}

func (v *secondsPtrValue) Set(s string) error {
	f, err := config.ParseSeconds(s, true)
	if err != nil {
		v.fail(err)
		return nil
	}
	sec := config.Seconds(f)
	*v.p = &sec
	return nil
}

func (v *secondsPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return formatFloat(float64(**v.p))
}
func (v *secondsPtrValue) Type() string { return "float" }

// choiceValue sets an enum string (a field of a named string type, or a
// plain string) after its normaliser. Membership is checked by
// config.Validate, which knows the difference between "invalid" and "not
// supported yet".
type choiceValue struct {
	recorder
	p         reflect.Value // the settable string field
	normalize func(string) string
}

func (v *choiceValue) Set(s string) error { v.p.SetString(v.normalize(s)); return nil }
func (v *choiceValue) String() string     { return v.p.String() }
func (v *choiceValue) Type() string       { return "choice" }

// extraInputsValue appends --extra-inputs entries.
type extraInputsValue struct {
	recorder
	p *[]config.ExtraInput
}

func (v *extraInputsValue) Set(s string) error {
	xs, err := config.ParseExtraInputs(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, xs...)
	return nil
}

func (v *extraInputsValue) String() string {
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		parts[i] = x.Key + ":" + string(x.Value)
	}
	return strings.Join(parts, ",")
}
func (v *extraInputsValue) Type() string { return "key:value" }

// headersValue appends -H entries.
type headersValue struct {
	recorder
	p *[]config.Header
}

func (v *headersValue) Set(s string) error {
	hs, err := config.ParseHeaders(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, hs...)
	return nil
}
func (v *headersValue) String() string { return "" }
func (v *headersValue) Type() string   { return "name:value" }

// goodputValue merges --goodput SLOs; a repeated metric keeps the last
// value.
type goodputValue struct {
	recorder
	p *map[string]float64
}

func (v *goodputValue) Set(s string) error {
	slos, err := config.ParseGoodput(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	if *v.p == nil {
		*v.p = make(map[string]float64, len(slos))
	}
	for _, g := range slos {
		(*v.p)[g.Metric] = g.Value
	}
	return nil
}

func (v *goodputValue) String() string {
	if len(*v.p) == 0 {
		return ""
	}
	b, _ := json.Marshal(*v.p) // finite floats always marshal
	return string(b)
}
func (v *goodputValue) Type() string { return "metric:value" }

// parseInt parses an int option, refusing sweeps for magic-list options.
func parseInt(s string, magic bool) (int, error) {
	if magic {
		return config.ParseMagicInt(s)
	}
	return config.ParseInt(s)
}

// parseFloat parses a float option, refusing sweeps for magic-list options.
func parseFloat(s string, magic bool) (float64, error) {
	if magic {
		return config.ParseMagicFloat(s)
	}
	return config.ParseFloat(s)
}

// formatFloat renders f the shortest way ("30", "0.5").
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Compile-time checks that every value implements pflag.Value.
var (
	_ pflag.Value = (*stringValue)(nil)
	_ pflag.Value = (*secretValue)(nil)
	_ pflag.Value = (*boolValue)(nil)
	_ pflag.Value = (*listValue)(nil)
	_ pflag.Value = (*intValue)(nil)
	_ pflag.Value = (*intPtrValue)(nil)
	_ pflag.Value = (*int64PtrValue)(nil)
	_ pflag.Value = (*floatValue)(nil)
	_ pflag.Value = (*floatPtrValue)(nil)
	_ pflag.Value = (*secondsPtrValue)(nil)
	_ pflag.Value = (*choiceValue)(nil)
	_ pflag.Value = (*extraInputsValue)(nil)
	_ pflag.Value = (*headersValue)(nil)
	_ pflag.Value = (*goodputValue)(nil)
)
