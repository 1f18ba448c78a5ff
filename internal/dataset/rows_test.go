package dataset

import (
	"reflect"
	"testing"
	"time"
)

// TestRowTurnSeesEveryField: a compact row keeps only the prompt, the
// max tokens and the timestamp of its turn, so setting any other Turn
// field (including one added later) must make RowTurn refuse it.
func TestRowTurnSeesEveryField(t *testing.T) {
	base := func() Turn {
		return Turn{Prompt: &Prompt{}, InputTokens: -1, MaxTokens: 3, Timestamp: time.Second, HasTimestamp: true}
	}
	b := base()
	if !RowTurn(&b) {
		t.Fatal("the base turn is not compact")
	}
	kept := map[string]bool{"Prompt": true, "InputTokens": true, "MaxTokens": true, "Timestamp": true, "HasTimestamp": true}
	typ := reflect.TypeFor[Turn]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if kept[f.Name] {
			continue
		}
		tr := base()
		v := reflect.ValueOf(&tr).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(1)
		case reflect.Float64:
			v.SetFloat(1)
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", f.Name, v.Kind())
		}
		if RowTurn(&tr) {
			t.Errorf("a turn with %s set is taken as compact", f.Name)
		}
	}
}
