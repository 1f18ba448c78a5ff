package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
)

// decodeStrict decodes a component spec into v, rejecting fields v does
// not declare: an option this package does not know could change the
// tokens, so it is an error naming the component, never silently dropped.
// path and typ name the component in the error.
func decodeStrict(path, typ string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s (%s): %w", path, typ, cleanJSONError(err))
	}
	return nil
}

var unknownFieldRE = regexp.MustCompile(`^json: unknown field "(.*)"$`)

// cleanJSONError rewords encoding/json's unknown-field error so it reads
// as an unsupported option.
func cleanJSONError(err error) error {
	if m := unknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("unsupported option %q", m[1])
	}
	return err
}

// newSequence builds the members of a "Sequence" component, listed under
// field, each by build at its own path; members that build to nil
// (no-ops) are left out. The spec is decoded as strictly as every other
// component's: into a struct of "type" and field alone, made for field.
func newSequence[T any](path, field string, raw json.RawMessage, build func(string, json.RawMessage) (T, error)) ([]T, error) {
	spec := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "Type", Type: reflect.TypeFor[string](), Tag: `json:"type"`},
		{Name: "Members", Type: reflect.TypeFor[[]json.RawMessage](), Tag: reflect.StructTag(`json:"` + field + `"`)},
	}))
	if err := decodeStrict(path, "Sequence", raw, spec.Interface()); err != nil {
		return nil, err
	}
	var seq []T
	for i, r := range spec.Elem().Field(1).Interface().([]json.RawMessage) {
		m, err := build(subPath(path, field, i), r)
		if err != nil {
			return nil, err
		}
		if any(m) != nil {
			seq = append(seq, m)
		}
	}
	return seq, nil
}

// subPath is the JSON path of element i of the array field of path.
func subPath(path, field string, i int) string {
	return fmt.Sprintf("%s.%s[%d]", path, field, i)
}

// patternSpec is a tokenizer.json pattern: exactly one of String (a
// literal) and Regex (an Oniguruma regular expression).
type patternSpec struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}
