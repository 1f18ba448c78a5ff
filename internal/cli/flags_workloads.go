package cli

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// rangeRatioValue parses --random-range-ratio.
type rangeRatioValue struct {
	recorder
	p **config.RangeRatio
}

func (v *rangeRatioValue) Set(s string) error {
	r, err := config.ParseRangeRatio(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = r
	return nil
}

func (v *rangeRatioValue) String() string {
	if *v.p == nil {
		return ""
	}
	return (*v.p).String()
}

func (v *rangeRatioValue) Type() string { return "ratio" }

// keyValueList appends key=value options.
type keyValueList struct {
	recorder
	p *[]config.KeyValue
}

func (v *keyValueList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			v.fail(fmt.Errorf("want key=value, got %q", part))
			return nil
		}
		*v.p = append(*v.p, config.KeyValue{Key: strings.TrimSpace(k), Value: strings.TrimSpace(val)})
	}
	return nil
}

func (v *keyValueList) String() string {
	parts := make([]string, len(*v.p))
	for i, kv := range *v.p {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ",")
}

func (v *keyValueList) Type() string { return "key=value" }
