package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
)

// commandLine renders the command that started a run, for artifacts
// (AIPerf's cli_command), with every secret replaced by "<redacted>":
// --api-key values, the values of credential-bearing headers (see
// config.IsSensitiveHeader, in Name:Value and JSON forms) and passwords in
// URLs. fs resolves aliases and shorthands, so "--api_key" and
// "-HAuthorization:x" are caught too.
//
// Like AIPerf, plain values are single-quoted and numbers are not:
// aiperf profile -m 'mock-model' --concurrency 2.
func commandLine(fs *pflag.FlagSet, args []string) string {
	out := []string{"aiperf"}
	var pending *pflag.Flag // flag whose value comes next
	var multi *pflag.Flag   // multi-value flag still taking values
	for i, a := range args {
		switch {
		case i == 0 && a == "profile":
			out = append(out, a)
			continue
		case pending != nil && !isKnownFlag(fs, a):
			out = append(out, quoteArg(redactValue(pending.Name, a)))
			if multiValueFlags()[pending.Name] {
				multi = pending
			}
			pending = nil
			continue
		case multi != nil && !strings.HasPrefix(a, "-"):
			out = append(out, quoteArg(redactValue(multi.Name, a)))
			continue
		}
		multi, pending = nil, nil
		f, value, hasValue := lookupArg(fs, a)
		switch {
		case f == nil:
			if strings.HasPrefix(a, "-") {
				out = append(out, a)
			} else {
				out = append(out, quoteArg(a))
			}
		case hasValue:
			out = append(out, flagPrefix(a)+redactValue(f.Name, value))
			if multiValueFlags()[f.Name] {
				multi = f
			}
		default:
			out = append(out, a)
			if f.NoOptDefVal == "" {
				pending = f
			}
		}
	}
	return strings.Join(out, " ")
}

// lookupArg resolves a flag token to its flag and inline value: "--name",
// "--name=value", "-x", "-xvalue", "-x=value". Non-flag tokens, "-vv" and
// unknown flags return nil.
func lookupArg(fs *pflag.FlagSet, a string) (f *pflag.Flag, value string, hasValue bool) {
	switch {
	case strings.HasPrefix(a, "--") && len(a) > 2:
		name, v, ok := strings.Cut(a[2:], "=")
		return fs.Lookup(name), v, ok
	case len(a) == 2 && a[0] == '-':
		return fs.ShorthandLookup(a[1:]), "", false
	case len(a) > 2 && a[0] == '-' && a[1] != '-':
		f := fs.ShorthandLookup(a[1:2])
		if f == nil || f.NoOptDefVal != "" {
			return nil, "", false
		}
		return f, strings.TrimPrefix(a[2:], "="), true
	}
	return nil, "", false
}

// flagPrefix returns the part of a flag token before its inline value.
func flagPrefix(a string) string {
	if strings.HasPrefix(a, "--") {
		name, _, _ := strings.Cut(a, "=")
		return name + "="
	}
	if len(a) > 2 && a[2] == '=' {
		return a[:3]
	}
	return a[:2]
}

// redactValue hides the secret parts of a value of flag (canonical name),
// as its option's Redact says.
func redactValue(flag, v string) string {
	switch redactions()[flag] {
	case option.Secret:
		return config.Redacted
	case option.SecretHeaders:
		return redactHeaderArg(v)
	case option.SecretURL: // URLs that may carry credentials
		return redactURLArg(v)
	case option.SecretFields:
		return redactExtraInputsArg(v)
	}
	return v
}

// redactions maps each option with a secret to its redaction.
var redactions = sync.OnceValue(func() map[string]option.Redaction {
	m := map[string]option.Redaction{}
	for _, o := range option.All() {
		if o.Redact != option.NotSecret {
			m[o.Name] = o.Redact
		}
	}
	return m
})

// redactExtraInputsArg redacts the values of sensitive --extra-inputs
// fields (api_key:..., {"access_token": ...}); an unparsable value that
// names a sensitive field is redacted whole.
func redactExtraInputsArg(v string) string {
	xs, err := config.ParseExtraInputs(v)
	if err != nil {
		if config.IsSensitiveField(v) {
			return config.Redacted
		}
		return v
	}
	redacted := false
	for i := range xs {
		if config.IsSensitiveField(xs[i].Key) {
			xs[i].Value, redacted = json.RawMessage(jsonString(config.Redacted)), true
		}
	}
	if !redacted {
		return v
	}
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		obj := make([]string, len(xs))
		for i, x := range xs {
			obj[i] = jsonString(x.Key) + ":" + string(x.Value)
		}
		return "{" + strings.Join(obj, ",") + "}"
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		val := string(x.Value)
		if config.IsSensitiveField(x.Key) {
			val = config.Redacted
		}
		parts[i] = x.Key + ":" + val
	}
	return strings.Join(parts, " ")
}

// redactHeaderArg redacts a -H value: "Name:Value" keeps the name; a JSON
// object keeps every key and redacts the values of sensitive ones. An
// unparsable JSON object is redacted whole, to be safe.
func redactHeaderArg(v string) string {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		hs, err := config.ParseHeaders(v)
		if err != nil {
			return config.Redacted
		}
		redacted := false
		obj := make([]string, len(hs))
		for i, h := range hs {
			val := h.Value
			if config.IsSensitiveHeader(h.Name) {
				val, redacted = config.Redacted, true
			}
			obj[i] = jsonString(h.Name) + ":" + jsonString(val)
		}
		if !redacted {
			return v
		}
		return "{" + strings.Join(obj, ",") + "}"
	}
	name, _, ok := strings.Cut(v, ":")
	if ok && config.IsSensitiveHeader(strings.TrimSpace(name)) {
		return name + ":" + config.Redacted
	}
	return v
}

// jsonString quotes s as JSON without HTML escaping, so "<redacted>"
// stays readable.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// redactURLArg replaces the userinfo ("user:pass@") of each URL in a
// --url value with "<redacted>@".
func redactURLArg(v string) string {
	parts := config.SplitList(v)
	redacted := config.RedactURLs(parts)
	for i := range parts {
		if parts[i] != redacted[i] {
			return strings.Join(redacted, ",")
		}
	}
	return v
}

// quoteArg single-quotes a value for a POSIX shell unless it is a number.
func quoteArg(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "nN") {
		return v
	}
	if v == config.Redacted {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
