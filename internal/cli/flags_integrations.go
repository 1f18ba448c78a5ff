package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// otelURLValue sets --otel-url, normalised to the OTLP/HTTP metrics path.
type otelURLValue struct {
	recorder
	p *config.CredURL
}

func (v *otelURLValue) Set(s string) error {
	u, err := config.NormalizeOTelURL(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = config.CredURL(u)
	return nil
}
func (v *otelURLValue) String() string { return v.p.String() }
func (v *otelURLValue) Type() string   { return "url" }

// credURLValue sets a URL that may carry credentials; String redacts them.
type credURLValue struct {
	recorder
	p *config.CredURL
}

func (v *credURLValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		v.fail(fmt.Errorf("must not be empty"))
		return nil
	}
	*v.p = config.CredURL(s)
	return nil
}
func (v *credURLValue) String() string { return v.p.String() }
func (v *credURLValue) Type() string   { return "url" }

// pairsValue appends key<sep>value pairs (comma-separated), or with json
// the keys of a JSON object.
type pairsValue struct {
	recorder
	p    *[]config.KeyValue
	sep  string
	json bool
}

func (v *pairsValue) Set(s string) error {
	kvs, err := config.ParseKeyValues([]string{s}, v.sep, v.json)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, kvs...)
	return nil
}

func (v *pairsValue) String() string {
	parts := make([]string, len(*v.p))
	for i, kv := range *v.p {
		parts[i] = kv.Key + v.sep + kv.Value
	}
	return strings.Join(parts, ",")
}
func (v *pairsValue) Type() string { return "key" + v.sep + "value" }

// stringPtrValue sets an optional string ("" is a value).
type stringPtrValue struct {
	recorder
	p **string
}

func (v *stringPtrValue) Set(s string) error { *v.p = &s; return nil }
func (v *stringPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.Quote(**v.p)
}
func (v *stringPtrValue) Type() string { return "string" }
