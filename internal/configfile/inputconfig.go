package configfile

import (
	"reflect"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
)

// Setting is one option's value as the input_config block of the
// summaries records it.
type Setting struct {
	// Path is the dot path under "benchmark": phases.<kind>.x inside the
	// phase of that kind, datasets.0.x inside the only dataset.
	Path string
	// Value is the config-file value (what a config file would hold),
	// with the option's secrets redacted.
	Value any
}

// InputConfigSettings returns, in option-table order, the value of every
// option that has an input_config path (option.InputConfigPaths) and was
// either given (given reports the options set on the command line, by
// canonical name) or holds a value other than its default (a config
// file's keys, what the command line resolved). This is AIPerf's
// input_config: the benchmark configuration without the fields left
// unset. Each value is read as its config-file key encodes it, so the
// block reads back as a config file's benchmark section.
func InputConfigSettings(cfg *config.Config, given func(option string) bool) []Setting {
	def := config.Defaults()
	var out []Setting
	for _, o := range option.All() {
		for _, at := range o.InputConfigPaths() {
			bind, encode := o.Bind, encodeValue
			if k := at.Key; k != nil {
				if k.Bind != nil {
					bind = k.Bind
				}
				if c := convs[k.Conv]; c != nil && c.encode != nil {
					encode = c.encode
				}
			}
			if bind == nil {
				continue
			}
			v, ok := encode(bind(cfg))
			if !ok || v == nil || isEmptyList(v) {
				continue
			}
			if !given(o.Name) {
				if dv, ok := encode(bind(&def)); ok && reflect.DeepEqual(v, dv) {
					continue
				}
			}
			out = append(out, Setting{Path: at.Path, Value: redact(o.Redact, v)})
		}
	}
	return out
}

// isEmptyList reports an empty list, which says nothing (a list flag
// turned off with its --no- form).
func isEmptyList(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Slice && r.Len() == 0
}

// redact hides the secret parts of an encoded value as the option's
// redaction says: the whole value, the password of URLs, or the values
// of credential-bearing headers and request-body fields.
func redact(r option.Redaction, v any) any {
	switch r {
	case option.Secret:
		if s, ok := v.(string); ok && s == "" {
			return v
		}
		return config.Redacted
	case option.SecretURL:
		switch x := v.(type) {
		case string:
			return config.RedactURL(x)
		case []string:
			return config.RedactURLs(x)
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = redact(r, e)
			}
			return out
		}
	case option.SecretHeaders, option.SecretFields:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		sensitive := config.IsSensitiveHeader
		if r == option.SecretFields {
			sensitive = config.IsSensitiveField
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			if sensitive(k) {
				e = config.Redacted
			}
			out[k] = e
		}
		return out
	}
	return v
}
