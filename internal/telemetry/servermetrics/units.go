package servermetrics

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The unit exports show for a server metric is inferred the way AIPerf 0.13
// infers it, in this order of authority: a range written in the
// description ("(0-1)" is a ratio, "(0-100)" a percent), a unit written in
// the description ("(in MiB)", "in seconds"), then the name's suffix
// ("_seconds", "_tokens", "_total"). The names are AIPerf's display names
// ("seconds", "tokens", "ratio", ...). testdata/aiperf_units.json pins
// them against AIPerf's own inference.

// suffixUnits maps name suffixes to units; the longest matching suffix wins.
var suffixUnits = map[string]string{
	"_seconds": "seconds", "_seconds_total": "seconds",
	"_milliseconds": "milliseconds", "_ms": "milliseconds", "_ms_total": "milliseconds",
	"_nanoseconds": "nanoseconds", "_ns": "nanoseconds", "_ns_total": "nanoseconds",
	"_bytes": "bytes", "_kilobytes": "kilobytes", "_megabytes": "megabytes", "_gigabytes": "gigabytes", "_bytes_total": "bytes",
	"_total": "count", "_count": "count",
	"_tokens": "tokens", "_tokens_total": "tokens",
	"_requests": "requests", "_requests_total": "requests", "request_success": "requests",
	"_errors": "errors", "_errors_total": "errors", "_error_count": "errors", "_error_count_total": "errors",
	"_reqs":   "requests",
	"_blocks": "blocks", "_blocks_total": "blocks", "_block_count": "blocks",
	"_gb_s":    "gb/s",
	"_ratio":   "ratio",
	"_percent": "percent", "_perc": "percent",
	"_celsius": "celsius",
	"_joules":  "joule",
	"_watts":   "watt",
}

// sortedSuffixes lists suffixUnits' keys longest first (ties in a fixed
// order), so the most specific suffix is tried first.
var sortedSuffixes = func() []string {
	keys := make([]string, 0, len(suffixUnits))
	for k := range suffixUnits {
		keys = append(keys, k)
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return keys
}()

// descriptionUnits are unit phrases in a description, tried in order.
// They and the patterns below compile on first use, not at every start of
// the program.
var descriptionUnits = sync.OnceValue(func() []unitPhrase {
	return []unitPhrase{
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()seconds?(?:\b|\))`), "seconds"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:milliseconds?|ms)(?:\b|\))`), "milliseconds"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:nanoseconds?|ns)(?:\b|\))`), "nanoseconds"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()bytes?(?:\b|\))`), "bytes"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()GB/s(?:\b|\))`), "gb/s"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()MB/s(?:\b|\))`), "mb/s"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()tokens?/s(?:ec(?:ond)?)?(?:\b|\))`), "tokens/s"},
		{regexp.MustCompile(`(?i)(?:\bin\s+|\()requests?/s(?:ec(?:ond)?)?(?:\b|\))`), "requests/s"},
		{regexp.MustCompile(`(?i)\bin\s+tokens?\b`), "tokens"},
	}
})

// unitPhrase is a unit phrase of a description and the unit it names.
type unitPhrase struct {
	re   *regexp.Regexp
	unit string
}

// parentheticalUnits are the "(in <unit>)" spellings DCGM uses, matched
// case-sensitively (mJ is not MJ).
var parentheticalUnits = map[string]string{
	"MiB": "megabytes", "GiB": "gigabytes", "KiB": "kilobytes",
	"B": "bytes", "MB": "megabytes", "GB": "gigabytes", "KB": "kilobytes", "TB": "terabytes",
	"C": "celsius", "°C": "celsius", "F": "fahrenheit", "°F": "fahrenheit", "K": "kelvin",
	"Hz": "hertz", "MHz": "megahertz", "GHz": "gigahertz",
	"W": "watt", "mW": "milliwatt",
	"J": "joule", "mJ": "millijoule", "MJ": "megajoule",
	"s": "seconds", "sec": "seconds", "ms": "milliseconds", "ns": "nanoseconds", "us": "microseconds", "µs": "microseconds",
	"GB/s": "gb/s", "MB/s": "mb/s",
	"%": "percent", "percent": "percent",
}

var (
	parentheticalRE = lazyRE(`\(in\s+([^\s)]+)\)`)
	ratioRangeRE    = lazyRE(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\)` +
		`|\b0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b` +
		`|\brange\s+0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b` +
		`|(?:\b|\()1(?:\.0)?\s*(?:means|is|equals?|==?)\s*100\s*(?:%|percent)`)
	percentRangeRE = lazyRE(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*100(?:\.0)?\)` +
		`|\brange\s+0\s*(?:[-–—]+|to)\s*100\b` +
		`|\b0\s*(?:[-–—]+|to)\s*100\s*%`)
)

// lazyRE compiles expr on first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// InferUnit returns the display unit of a metric from its (AIPerf) name and
// HELP text, or "" when none can be told.
func InferUnit(name, help string) string {
	if help != "" {
		switch {
		case ratioRangeRE().MatchString(help):
			return "ratio"
		case percentRangeRE().MatchString(help):
			return "percent"
		}
		if m := parentheticalRE().FindStringSubmatch(help); m != nil {
			if u, ok := parentheticalUnits[strings.TrimSpace(m[1])]; ok {
				return u
			}
		}
		for _, d := range descriptionUnits() {
			if d.re.MatchString(help) {
				return d.unit
			}
		}
	}
	lower := strings.ToLower(name)
	for _, suf := range sortedSuffixes {
		if strings.HasSuffix(lower, suf) {
			return suffixUnits[suf]
		}
	}
	if strings.Contains(lower, "num_requests_") {
		return "requests"
	}
	return ""
}
