package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/search"
)

// searchSpaceValue appends --search-space dimensions.
type searchSpaceValue struct {
	recorder
	p *[]config.SearchDim
}

func (v *searchSpaceValue) Set(s string) error {
	d, err := search.ParseDim(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, config.SearchDim{Path: d.Path, Lo: d.Lo, Hi: d.Hi, Int: d.Int, Log: d.Log})
	return nil
}

func (v *searchSpaceValue) String() string {
	parts := make([]string, len(*v.p))
	for i, d := range *v.p {
		parts[i] = search.Dim{Path: d.Path, Lo: d.Lo, Hi: d.Hi, Int: d.Int}.String()
	}
	return strings.Join(parts, " ")
}
func (v *searchSpaceValue) Type() string { return "path:lo,hi[:kind]" }

// repeatedValue appends each value whole (commas included), for the
// repeatable flags whose values contain commas (--search-sla-tier,
// --variant).
type repeatedValue struct {
	recorder
	p *[]string
}

func (v *repeatedValue) Set(s string) error { *v.p = append(*v.p, s); return nil }
func (v *repeatedValue) String() string     { return strings.Join(*v.p, " ") }
func (v *repeatedValue) Type() string       { return "list" }
