package agenticcode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// fixed formats v with decimals digits (correctly rounded, ties to even,
// as Python's format), with thousands separators when comma.
func fixed(v float64, decimals int, comma bool) string {
	if comma {
		return pyfmt.Grouped(v, decimals)
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// num reads a number of a quality.json value (nil when absent or null).
func num(v any) *float64 {
	switch x := v.(type) {
	case float64:
		return &x
	case *float64:
		return x
	case int:
		f := float64(x)
		return &f
	}
	return nil
}

// lookup returns key's value in o, nil when absent.
func (o obj) lookup(key string) any {
	for _, f := range o {
		if f.k == key {
			return f.v
		}
	}
	return nil
}

func (o obj) sub(key string) obj {
	if s, ok := o.lookup(key).(obj); ok {
		return s
	}
	return nil
}

// Comparison is comparison.txt: a shareable text table of targets
// against the dataset, from the quality report, laid out as AIPerf's.
// sessionMinutes is the estimated session duration (unrounded stats).
func Comparison(quality obj, sessionMinutes *Stats) string {
	cfg, ovt := quality.sub("config_summary"), quality.sub("observed_vs_target")
	sess, ends := quality.sub("session_stats"), quality.sub("session_end_stats")
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	turns := 0
	if c := num(ovt.sub("generation_length").sub("observed").lookup("count")); c != nil {
		turns = int(*c)
	}
	w("Agentic Code Session Profile: Target vs Synthesized Dataset")
	w("%s", strings.Repeat("=", 60))
	w("")
	w("%s sessions | %s turns | block_size=%d", fixed(float64(ends.lookup("total_sessions").(int)), 0, true), fixed(float64(turns), 0, true), cfg.lookup("block_size").(int))
	w("")
	w("%40s %12s %12s %8s", "", "Target", "Dataset", "Error")
	w("%s", strings.Repeat("-", 76))
	row := func(label string, target, observed, pctErr *float64) {
		t, o := fmt.Sprintf("%12s", "-"), fmt.Sprintf("%12s", "-")
		if target != nil {
			t = fmt.Sprintf("%12s", fixed(*target, 0, true))
		}
		if observed != nil {
			o = fmt.Sprintf("%12s", fixed(*observed, 1, true))
		}
		e := ""
		if pctErr != nil {
			sign := "+"
			if observed != nil && target != nil && *pctErr != 0 && *observed < *target {
				sign = "-"
			}
			a := *pctErr
			if a < 0 {
				a = -a
			}
			e = "  " + sign + fixed(a, 1, false) + "%"
		}
		w("  %-38s%s%s%s", label, t, o, e)
	}
	block := func(label, key string) {
		w("%s", label)
		m := ovt.sub(key)
		o := m.sub("observed")
		row("mean", num(m.lookup("target_mean")), num(o.lookup("mean")), num(m.lookup("pct_error_mean")))
		row("median", num(m.lookup("target_median")), num(o.lookup("median")), num(m.lookup("pct_error_median")))
	}
	block("Initial Context (tokens)", "initial_context")
	w("")
	block("New Tokens Per Turn", "new_tokens_per_turn")
	w("")
	gen := ovt.sub("generation_length")
	obs := gen.sub("observed")
	w("Generation Length (tokens)")
	row("mean", num(gen.lookup("target_mean")), num(obs.lookup("mean")), num(gen.lookup("pct_error_mean")))
	row("median", num(gen.lookup("target_median")), num(obs.lookup("median")), num(gen.lookup("pct_error_median")))
	p05, p99 := 30.0, 3750.0 // AIPerf's reference profile's output percentiles
	row("p05", &p05, num(obs.lookup("p05")), nil)
	row("p99", &p99, num(obs.lookup("p99")), nil)
	w("")
	maxPrompt := fixed(float64(cfg.lookup("max_prompt_tokens").(int)), 0, true)
	w("Prompt")
	w("  %-38s%12s%12s", "max_prompt_tokens", maxPrompt, maxPrompt)
	w("")
	w("Additional Dataset Statistics")
	w("%s", strings.Repeat("-", 76))
	w("Turns Per Session")
	for _, f := range []string{"mean", "median", "p05", "p25", "p75", "p95", "p99"} {
		v := 0.0
		if x := num(sess.lookup(f)); x != nil {
			v = *x
		}
		w("  %-38s%12s%12s", f, "-", fixed(v, 1, false))
	}
	w("")
	if delay := ovt.sub("inter_turn_delay_ms").sub("observed"); len(delay) > 0 {
		w("Inter-Turn Delay (ms)")
		for _, f := range []string{"mean", "median", "p05", "p95"} {
			v := 0.0
			if x := num(delay.lookup(f)); x != nil {
				v = *x
			}
			w("  %-38s%12s%12s", f, "-", fixed(v, 0, true))
		}
		frac := func(key string) float64 {
			if x := num(cfg.lookup(key)); x != nil {
				return *x
			}
			return 0
		}
		af := frac("inter_turn_delay_agentic_fraction")
		w("  (%s%% agentic ~%ss, %s%% human ~%ss)", fixed(af*100, 0, false), fixed(frac("inter_turn_delay_agentic_mean_ms")/1000, 0, false),
			fixed((1-af)*100, 0, false), fixed(frac("inter_turn_delay_human_mean_ms")/1000, 0, false))
		w("")
	}
	if sessionMinutes != nil {
		w("Session Duration (estimated @ %s prefill tok/s, %s decode tok/s)", fixed(estimatePrefillTPS, 0, true), fixed(estimateDecodeTPS, 0, true))
		w("  %-38s%12s%12s min", "mean", "-", fixed(sessionMinutes.Mean, 1, false))
		w("  %-38s%12s%12s min", "median", "-", fixed(sessionMinutes.Median, 1, false))
		w("")
	}
	w("Session Endings")
	w("  %-38s%12s%12d", "forced retires (hit context limit)", "-", ends.lookup("forced_retires").(int))
	w("  %-38s%12s%12d", "probabilistic resets", "-", ends.lookup("probabilistic_resets").(int))
	w("  %-38s%12s%12d", "restart splits", "-", ends.lookup("restart_splits").(int))
	return b.String()
}
