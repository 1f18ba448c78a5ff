package cli

import (
	"fmt"
	"reflect"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
)

// value builds the pflag.Value of option o registered as name, bound to
// its field in cfg: the field's Go type decides the reading, o.Kind picks
// among the readings of the types that have several. invert makes a
// boolean store its negation (the --no- form, or an option stored as its
// opposite). A type no reading knows is a bug in the table: it panics at
// registration, which every command-line test reaches.
func (b *flagBuilder) value(cfg *config.Config, o option.Option, name string, invert bool) pflag.Value {
	r := b.rec(name)
	if set := o.Set; set != nil { // captured alone: capturing o would move every o to the heap
		return &funcValue{recorder: r, kind: o.Type, set: func(s string) error { return set(cfg, s) }}
	}
	if o.Bind == nil {
		var path string // --config: read before the flags are parsed
		return &stringValue{recorder: r, p: &path}
	}
	switch p := o.Bind(cfg).(type) {
	case *string:
		if o.Normalize != nil {
			return &choiceValue{recorder: r, p: reflect.ValueOf(p).Elem(), normalize: o.Normalize}
		}
		return &stringValue{recorder: r, p: p}
	case **string:
		return &stringPtrValue{recorder: r, p: p}
	case *config.Secret:
		return &secretValue{recorder: r, p: p}
	case *bool:
		if invert {
			return &negBoolValue{boolValue{recorder: r, p: p}}
		}
		return &boolValue{recorder: r, p: p}
	case **bool:
		return &boolPtrValue{recorder: r, p: p, invert: invert}
	case *int:
		return &intValue{recorder: r, p: p, magic: o.Magic}
	case **int:
		return &intPtrValue{recorder: r, p: p, magic: o.Magic}
	case **int64:
		return &int64PtrValue{recorder: r, p: p}
	case *float64:
		return &floatValue{recorder: r, p: p, magic: o.Magic}
	case **float64:
		return &floatPtrValue{recorder: r, p: p, magic: o.Magic}
	case **config.Seconds:
		return &secondsPtrValue{recorder: r, p: p}
	case *[]string:
		switch o.Kind {
		case option.Repeated:
			return &repeatedValue{recorder: r, p: p}
		case option.ChoiceList:
			return &choiceListValue[string]{recorder: r, p: p}
		}
		return &listValue{recorder: r, p: p, each: o.Each}
	case *[]int:
		return intList(r, p)
	case *[]float64:
		return floatList(r, p)
	case *[]config.UseCase:
		return &choiceListValue[config.UseCase]{recorder: r, p: p}
	case *[]config.MetricView:
		return &choiceListValue[config.MetricView]{recorder: r, p: p}
	case *[]config.ExtraInput:
		return &extraInputsValue{recorder: r, p: p}
	case *[]config.Header:
		return &headersValue{recorder: r, p: p}
	case *map[string]float64:
		return &goodputValue{recorder: r, p: p}
	case *[]config.KeyValue:
		if o.Sep != "" {
			return &pairsValue{recorder: r, p: p, sep: o.Sep, json: o.JSON}
		}
		return &keyValueList{recorder: r, p: p}
	case **config.RangeRatio:
		return &rangeRatioValue{recorder: r, p: p}
	case *[]config.SeqDistEntry:
		return &seqDistValue{recorder: r, p: p}
	case **config.Ramp:
		return &rampValue{recorder: r, p: p}
	case *config.LoadShape:
		return &rateSeriesValue{recorder: r, s: p}
	case *[]config.SearchDim:
		return &searchSpaceValue{recorder: r, p: p}
	case *config.CredURL:
		if o.Kind == option.OTelURL {
			return &otelURLValue{recorder: r, p: p}
		}
		return &credURLValue{recorder: r, p: p}
	}
	// A named string type: a choice.
	if v := reflect.ValueOf(o.Bind(cfg)); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.String {
		normalize := o.Normalize
		if normalize == nil {
			normalize = config.NormalizeChoice
		}
		return &choiceValue{recorder: r, p: v.Elem(), normalize: normalize}
	}
	panic(fmt.Sprintf("option --%s: no flag reading for a %T field", o.Name, o.Bind(cfg)))
}
