package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/results"
)

// Over-saturation inside a sweep or a search (--over-saturation). Each
// run watches itself (package benchmark writes its verdict, with the
// slopes and margins, in its summary's over_saturation); the experiment
// reads that verdict back after each run. In monitor mode every
// over-saturated step is flagged and the sweep goes on. In enforce mode
// the first over-saturated step ends the escalation: a sweep runs none of
// its later variations (in the sweep's order; their loads are the next
// steps up), and a search counts the point infeasible, so a planner looks
// below it. The step itself keeps its runs: it is the measurement of the
// knee.

// overSaturated is the first over-saturated verdict among runs, if any.
func overSaturated(rs []runResult) (*results.OverSaturation, bool) {
	for i := range rs {
		if s := rs[i].Summary; rs[i].ok() && s.OverSaturation != nil && s.OverSaturation.OverSaturated {
			return s.OverSaturation, true
		}
	}
	return nil, false
}

// saturationText states a verdict's figures: when, and each slope with
// its margin of error.
func saturationText(o *results.OverSaturation) string {
	return fmt.Sprintf("at %.1f s: in flight rising %.3g/s (margin of error %.2g), TTFT rising %.3g s/s (margin of error %.2g)",
		o.Seconds, o.ConcurrentSlope, o.ConcurrentMOE, o.TTFTSlope, o.TTFTMOE)
}

// noteSaturation reports run res of variation v when the server was
// over-saturated in it and, in enforce mode, stops a sweep's escalation:
// the later variations are marked done without running. A search decides
// through its observation instead (observe).
func (x *experiment) noteSaturation(v int, res *runResult) {
	if !res.ok() || res.Summary.OverSaturation == nil || !res.Summary.OverSaturation.OverSaturated {
		return
	}
	o := res.Summary.OverSaturation
	label := VariationLabel(&x.vars[v])
	fmt.Fprintf(x.rio.Stderr, "Experiment: %s (%s) is over-saturated (--over-saturation %s) %s\n", label, res.Label, o.Mode, saturationText(o))
	if o.Mode != config.OverSaturationEnforce || x.plan != nil {
		return
	}
	skipped := 0
	for w := v + 1; w < len(x.vars); w++ {
		if !x.done[w] && len(x.results[w]) == 0 {
			skipped++
		}
		x.done[w] = true
	}
	if skipped > 0 {
		fmt.Fprintf(x.rio.Stderr, "Experiment: the sweep stops escalating at %s: %d later variation(s) not run\n", label, skipped)
	}
	if !slices.Contains(x.saturated, v) {
		x.saturated = append(x.saturated, v)
	}
}

// saturationSummary is the sweep's over-saturation block for stdout: each
// variation flagged, and where an enforced stop ended the sweep; "" when
// none was flagged.
func (x *experiment) saturationSummary() string {
	var b strings.Builder
	for v := range x.vars {
		o, ok := overSaturated(x.results[v])
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("Over-saturation (--over-saturation " + o.Mode + "):\n")
		}
		fmt.Fprintf(&b, "  %s: over-saturated %s\n", VariationLabel(&x.vars[v]), saturationText(o))
	}
	if len(x.saturated) > 0 {
		v := x.saturated[0]
		n := 0
		for w := v + 1; w < len(x.vars); w++ {
			if len(x.results[w]) == 0 {
				n++
			}
		}
		fmt.Fprintf(&b, "  the sweep stopped escalating at %s; %d later variation(s) not run\n", VariationLabel(&x.vars[v]), n)
	}
	return b.String()
}
