package cli

import (
	"fmt"
	"reflect"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
)

// value builds the pflag.Value of option o registered as name, bound to
// its field in cfg: the field's Go type decides the reading (readings),
// o.Kind picks among the readings of the types that have several. invert
// makes a boolean store its negation (the --no- form, or an option stored
// as its opposite). A type no reading knows is a bug in the table: it
// panics at registration, which every command-line test reaches.
func (b *flagBuilder) value(cfg *config.Config, o option.Option, name string, invert bool) pflag.Value {
	r := b.rec(name)
	if set := o.Set; set != nil { // captured alone: capturing o would move every o to the heap
		return &funcValue{recorder: r, kind: o.Type, set: func(s string) error { return set(cfg, s) }}
	}
	if o.Bind == nil {
		var path string // --config: read before the flags are parsed
		return &stringValue{recorder: r, p: &path}
	}
	p := o.Bind(cfg)
	if read, ok := readings[reflect.TypeOf(p)]; ok {
		return read(r, p, o, invert)
	}
	// A named string type: a choice.
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.String {
		normalize := o.Normalize
		if normalize == nil {
			normalize = config.NormalizeChoice
		}
		return &choiceValue{recorder: r, p: v.Elem(), normalize: normalize}
	}
	panic(fmt.Sprintf("option --%s: no flag reading for a %T field", o.Name, p))
}

// reading builds the value of a field of one Go type.
type reading func(r recorder, p any, o option.Option, invert bool) pflag.Value

// readings maps each field type (a pointer to it, as Bind returns) to its
// reading.
var readings = map[reflect.Type]reading{
	reflect.TypeFor[*string](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		if o.Normalize != nil {
			return &choiceValue{recorder: r, p: reflect.ValueOf(p).Elem(), normalize: o.Normalize}
		}
		return &stringValue{recorder: r, p: p.(*string)}
	},
	reflect.TypeFor[**string](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &stringPtrValue{recorder: r, p: p.(**string)}
	},
	reflect.TypeFor[*config.Secret](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &secretValue{recorder: r, p: p.(*config.Secret)}
	},
	reflect.TypeFor[*bool](): func(r recorder, p any, _ option.Option, invert bool) pflag.Value {
		if invert {
			return &negBoolValue{boolValue{recorder: r, p: p.(*bool)}}
		}
		return &boolValue{recorder: r, p: p.(*bool)}
	},
	reflect.TypeFor[**bool](): func(r recorder, p any, _ option.Option, invert bool) pflag.Value {
		return &boolPtrValue{recorder: r, p: p.(**bool), invert: invert}
	},
	reflect.TypeFor[*int](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		return &intValue{recorder: r, p: p.(*int), magic: o.Magic}
	},
	reflect.TypeFor[**int](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		return &intPtrValue{recorder: r, p: p.(**int), magic: o.Magic}
	},
	reflect.TypeFor[**int64](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &int64PtrValue{recorder: r, p: p.(**int64)}
	},
	reflect.TypeFor[*float64](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		return &floatValue{recorder: r, p: p.(*float64), magic: o.Magic}
	},
	reflect.TypeFor[**float64](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		return &floatPtrValue{recorder: r, p: p.(**float64), magic: o.Magic}
	},
	reflect.TypeFor[**config.Seconds](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &secondsPtrValue{recorder: r, p: p.(**config.Seconds)}
	},
	reflect.TypeFor[*[]string](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		switch o.Kind {
		case option.Repeated:
			return &repeatedValue{recorder: r, p: p.(*[]string)}
		case option.ChoiceList:
			return &choiceListValue[string]{recorder: r, p: p.(*[]string)}
		}
		return &listValue{recorder: r, p: p.(*[]string), each: o.Each}
	},
	reflect.TypeFor[*[]int](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return intList(r, p.(*[]int))
	},
	reflect.TypeFor[*[]float64](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return floatList(r, p.(*[]float64))
	},
	reflect.TypeFor[*[]config.UseCase](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &choiceListValue[config.UseCase]{recorder: r, p: p.(*[]config.UseCase)}
	},
	reflect.TypeFor[*[]config.MetricView](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &choiceListValue[config.MetricView]{recorder: r, p: p.(*[]config.MetricView)}
	},
	reflect.TypeFor[*[]config.ExtraInput](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &extraInputsValue{recorder: r, p: p.(*[]config.ExtraInput)}
	},
	reflect.TypeFor[*[]config.Header](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &headersValue{recorder: r, p: p.(*[]config.Header)}
	},
	reflect.TypeFor[*map[string]float64](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &goodputValue{recorder: r, p: p.(*map[string]float64)}
	},
	reflect.TypeFor[*[]config.KeyValue](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		if o.Sep != "" {
			return &pairsValue{recorder: r, p: p.(*[]config.KeyValue), sep: o.Sep, json: o.JSON}
		}
		return &keyValueList{recorder: r, p: p.(*[]config.KeyValue)}
	},
	reflect.TypeFor[**config.RangeRatio](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &rangeRatioValue{recorder: r, p: p.(**config.RangeRatio)}
	},
	reflect.TypeFor[*[]config.SeqDistEntry](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &seqDistValue{recorder: r, p: p.(*[]config.SeqDistEntry)}
	},
	reflect.TypeFor[**config.Ramp](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &rampValue{recorder: r, p: p.(**config.Ramp)}
	},
	reflect.TypeFor[*config.LoadShape](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &rateSeriesValue{recorder: r, s: p.(*config.LoadShape)}
	},
	reflect.TypeFor[*[]config.SearchDim](): func(r recorder, p any, _ option.Option, _ bool) pflag.Value {
		return &searchSpaceValue{recorder: r, p: p.(*[]config.SearchDim)}
	},
	reflect.TypeFor[*config.CredURL](): func(r recorder, p any, o option.Option, _ bool) pflag.Value {
		if o.Kind == option.OTelURL {
			return &otelURLValue{recorder: r, p: p.(*config.CredURL)}
		}
		return &credURLValue{recorder: r, p: p.(*config.CredURL)}
	},
}
