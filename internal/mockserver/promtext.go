package mockserver

import (
	"math"
	"strconv"
	"strings"
)

// promWriter writes the Prometheus text exposition format (version 0.0.4)
// by hand, so the mock needs no client library: # HELP and # TYPE lines,
// then samples with label sets. Values are written the way Python's
// prometheus_client writes them (integral floats as "12.0", le bounds as
// "0.5" and "+Inf"), which is what vLLM, SGLang and TRT-LLM serve.
type promWriter struct {
	b strings.Builder
	// intPlain writes integral numbers without ".0", as servers written in
	// Rust or C++ do ("1" rather than "1.0"), le bounds included.
	intPlain bool
}

// label is one name="value" pair.
type label struct{ name, value string }

// family writes the HELP and TYPE lines of a metric family.
func (w *promWriter) family(name, typ, help string) {
	w.b.WriteString("# HELP ")
	w.b.WriteString(name)
	w.b.WriteByte(' ')
	w.b.WriteString(escapeHelp(help))
	w.b.WriteString("\n# TYPE ")
	w.b.WriteString(name)
	w.b.WriteByte(' ')
	w.b.WriteString(typ)
	w.b.WriteByte('\n')
}

// sample writes one sample line.
func (w *promWriter) sample(name string, labels []label, v float64) {
	w.b.WriteString(name)
	if len(labels) > 0 {
		w.b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.b.WriteString(l.name)
			w.b.WriteString(`="`)
			w.b.WriteString(escapeLabel(l.value))
			w.b.WriteByte('"')
		}
		w.b.WriteByte('}')
	}
	w.b.WriteByte(' ')
	w.b.WriteString(w.num(v))
	w.b.WriteByte('\n')
}

// gauge writes a one-sample gauge family.
func (w *promWriter) gauge(name, help string, labels []label, v float64) {
	w.family(name, "gauge", help)
	w.sample(name, labels, v)
}

// counter writes a one-sample counter family; name ends in "_total".
func (w *promWriter) counter(name, help string, labels []label, v float64) {
	w.family(name, "counter", help)
	w.sample(name, labels, v)
}

// histogram writes a histogram family: cumulative _bucket lines with an le
// label, then _sum and _count.
func (w *promWriter) histogram(name, help string, labels []label, h histSnapshot) {
	w.family(name, "histogram", help)
	bl := make([]label, len(labels), len(labels)+1)
	copy(bl, labels)
	bl = append(bl, label{})
	for i, c := range h.cumulative {
		le := "+Inf"
		if i < len(h.bounds) {
			le = w.num(h.bounds[i])
		}
		bl[len(labels)] = label{"le", le}
		w.sample(name+"_bucket", bl, float64(c))
	}
	w.sample(name+"_sum", labels, h.sum)
	w.sample(name+"_count", labels, float64(h.count))
}

// num formats v in this page's style.
func (w *promWriter) num(v float64) string {
	s := promFloat(v)
	if w.intPlain {
		s = strings.TrimSuffix(s, ".0")
	}
	return s
}

// String returns the page written so far.
func (w *promWriter) String() string { return w.b.String() }

// promFloat formats v as Python's float repr does: integral values keep a
// ".0", infinities are "+Inf"/"-Inf".
func promFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if v == math.Trunc(v) && math.Abs(v) < 1e16 && !strings.ContainsAny(s, "e.") {
		s += ".0"
	}
	return s
}

// escapeHelp escapes a HELP text: backslash and newline.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
