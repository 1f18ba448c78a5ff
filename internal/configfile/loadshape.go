package configfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// Config-file shapes of the load-shape keys: ramps
// (concurrency_ramp, prefill_ramp, rate_ramp), rate_series, the phase
// sla: and adaptive_scale: blocks.

var (
	// rampConv reads a ramp: seconds or a duration ("30s"), or
	// {duration, strategy}.
	rampConv = conv{
		decode: func(n *Node, dst any) string {
			p := dst.(**config.Ramp)
			if n.Kind == Null {
				*p = nil
				return ""
			}
			r := &config.Ramp{}
			dur := n
			if n.Kind == Map {
				for _, k := range n.Keys {
					switch k.Name {
					case "duration", "strategy":
					default:
						msg := fmt.Sprintf("unknown ramp key %q (duration, strategy)", k.Name)
						if s := suggest(k.Name, []string{"duration", "strategy"}); s != "" {
							msg += fmt.Sprintf("; did you mean %q?", s)
						}
						return msg
					}
				}
				dur = n.Get("duration")
				if dur == nil {
					return "a ramp mapping needs duration"
				}
				if s := n.Get("strategy"); s != nil {
					str, ok := stringOf(s)
					if !ok || !slices.Contains(config.RampStrategies(), config.RampStrategy(str)) {
						return fmt.Sprintf("strategy must be linear, exponential or poisson, not %s", describe(s))
					}
					r.Strategy = config.RampStrategy(str)
				}
			}
			f, msg := seconds(dur, false)
			if msg != "" {
				return msg
			}
			if !(f > 0) {
				return "a ramp duration must be > 0 seconds"
			}
			r.Duration = f
			*p = r
			return ""
		},
		encode: func(dst any) (any, bool) {
			r := *dst.(**config.Ramp)
			if r == nil {
				return nil, false
			}
			m := map[string]any{"duration": r.Duration}
			if r.Strategy != "" {
				m["strategy"] = string(r.Strategy)
			}
			return m, true
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "number", "exclusiveMinimum": 0},
			map[string]any{"type": "string", "description": "a duration such as \"30s\""},
			map[string]any{"type": "object", "additionalProperties": false, "required": []any{"duration"}, "properties": map[string]any{
				"duration": map[string]any{"anyOf": []any{map[string]any{"type": "number"}, map[string]any{"type": "string"}}},
				"strategy": map[string]any{"enum": []any{"linear", "exponential", "poisson"}},
			}},
		}},
	}

	// rateSeriesConv reads rate_series: a JSON file path, a list of
	// {time_s, qps}, or {path} / {points}.
	rateSeriesConv = conv{
		decode: func(n *Node, dst any) string {
			s := dst.(*config.LoadShape)
			if n.Kind == Null {
				s.RateSeries, s.RateSeriesFile = nil, ""
				return ""
			}
			src := n
			if n.Kind == Map {
				path, points := n.Get("path"), n.Get("points")
				switch {
				case path != nil && points != nil:
					return "rate_series.path and rate_series.points are mutually exclusive"
				case path != nil:
					src = path
				case points != nil:
					src = points
				default:
					return "rate_series needs path or points"
				}
			}
			if file, ok := src.Value.(string); ok && src.Kind == Scalar {
				b, err := os.ReadFile(filepath.Clean(file))
				if err != nil {
					return err.Error()
				}
				pts, err := config.ParseRateSeries(b, file)
				if err != nil {
					return err.Error()
				}
				s.RateSeries, s.RateSeriesFile = pts, file
				return ""
			}
			if src.Kind != Seq {
				return "rate_series must be a JSON file path or a list of {time_s, qps}, not " + describe(src)
			}
			var pts []config.RatePoint
			for i, it := range src.Items {
				t, tok := floatOf(it.Get("time_s"))
				q, qok := floatOf(it.Get("qps"))
				if it.Kind != Map || !tok || !qok || len(it.Keys) != 2 {
					return fmt.Sprintf("rate_series point %d must be {time_s: <seconds>, qps: <rate>}", i)
				}
				pts = append(pts, config.RatePoint{TimeS: t, QPS: q})
			}
			s.RateSeries, s.RateSeriesFile = pts, ""
			return ""
		},
		encode: func(dst any) (any, bool) {
			s := dst.(*config.LoadShape)
			if len(s.RateSeries) == 0 {
				return nil, false
			}
			var out []any
			for _, p := range s.RateSeries {
				out = append(out, map[string]any{"time_s": p.TimeS, "qps": p.QPS})
			}
			return out, true
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "description": "a JSON file of points"},
			map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
				"time_s": map[string]any{"type": "number"}, "qps": map[string]any{"type": "number"}}}},
			map[string]any{"type": "object"},
		}},
	}

	// slaConv reads SLA filters into their "metric:stat:op:threshold"
	// form: nested {metric: {stat: {op: threshold}}} in file order, or a
	// list of {metric_tag, stat, op, threshold}.
	slaConv = conv{
		decode: func(n *Node, dst any) string {
			fs, msg := slaFilters(n)
			if msg != "" {
				return msg
			}
			*dst.(*[]string) = fs
			return ""
		},
		schema: map[string]any{"anyOf": []any{map[string]any{"type": "object"}, map[string]any{"type": "array"}}},
	}

	// adaptiveConv reads an adaptive_scale block (AIPerf 0.12+ nested
	// form, and the flat v1 keys), or a bare boolean.
	adaptiveConv = conv{
		decode: func(n *Node, dst any) string {
			p := dst.(**config.AdaptiveScale)
			if n.Kind == Null {
				*p = nil
				return ""
			}
			if n.Kind == Scalar {
				on, ok := n.Value.(bool)
				if !ok {
					return "must be a mapping or a boolean, not " + describe(n)
				}
				*p = nil
				if on {
					*p = config.NewAdaptiveScale()
				}
				return ""
			}
			if n.Kind != Map {
				return "must be a mapping, not " + describe(n)
			}
			a := config.NewAdaptiveScale()
			if msg := decodeAdaptive(n, a); msg != "" {
				return msg
			}
			if a.Variable == "" {
				*p = nil
				return ""
			}
			*p = a
			return ""
		},
		schema: map[string]any{"anyOf": []any{map[string]any{"type": "boolean"}, map[string]any{"type": "object"}}},
	}
)

// adaptiveKeys are the adaptive_scale keys, flat (v1 and aliases) and
// nested (0.12+ control/strategy).
var adaptiveKeys = []string{"enabled", "control", "strategy", "sla", "control_variable", "control_min", "control_max",
	"min_concurrency", "max_concurrency", "window", "assessment_period", "min_completed_requests", "sustain_duration"}

// decodeAdaptive fills a from an adaptive_scale mapping; a.Variable is
// cleared when the block says enabled: false.
func decodeAdaptive(n *Node, a *config.AdaptiveScale) string {
	for _, k := range n.Keys {
		if !slices.Contains(adaptiveKeys, k.Name) {
			msg := fmt.Sprintf("unknown adaptive_scale key %q", k.Name)
			if s := suggest(k.Name, adaptiveKeys); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return msg
		}
	}
	num := func(key string, v *float64) string {
		x := n.Get(key)
		if x == nil {
			return ""
		}
		f, ok := floatOf(x)
		if !ok {
			return fmt.Sprintf("%s must be a number, not %s", key, describe(x))
		}
		*v = f
		return ""
	}
	secs := func(key string, v *float64) string {
		x := n.Get(key)
		if x == nil {
			return ""
		}
		f, msg := seconds(x, false)
		if msg != "" {
			return key + " " + msg
		}
		*v = f
		return ""
	}
	var max float64
	hasMax := n.Get("control_max") != nil || n.Get("max_concurrency") != nil
	var minCompleted float64 = float64(a.MinCompletedRequests)
	for _, msg := range []string{
		num("control_min", &a.Min), num("min_concurrency", &a.Min),
		num("control_max", &max), num("max_concurrency", &max),
		secs("window", &a.AssessmentPeriod), secs("assessment_period", &a.AssessmentPeriod),
		secs("sustain_duration", &a.SustainDuration),
		num("min_completed_requests", &minCompleted),
	} {
		if msg != "" {
			return msg
		}
	}
	a.MinCompletedRequests = int(minCompleted)
	if v := n.Get("control_variable"); v != nil {
		s, _ := stringOf(v)
		a.Variable = config.AdaptiveVariable(s)
	}
	if c := n.Get("control"); c != nil {
		if c.Kind != Map {
			return "control must be a mapping {variable, min, max}"
		}
		for _, k := range c.Keys {
			switch k.Name {
			case "variable":
				s, _ := stringOf(k.Value)
				a.Variable = config.AdaptiveVariable(s)
			case "min":
				f, ok := floatOf(k.Value)
				if !ok {
					return "control.min must be a number"
				}
				a.Min = f
			case "max":
				f, ok := floatOf(k.Value)
				if !ok {
					return "control.max must be a number"
				}
				max, hasMax = f, true
			default:
				return fmt.Sprintf("unknown adaptive_scale.control key %q (variable, min, max)", k.Name)
			}
		}
	}
	if hasMax {
		a.Max = &max
	}
	if st := n.Get("strategy"); st != nil {
		if msg := decodeAdaptiveStrategy(st, a); msg != "" {
			return msg
		}
	}
	if s := n.Get("sla"); s != nil {
		fs, msg := slaFilters(s)
		if msg != "" {
			return "sla: " + msg
		}
		a.SLA = fs
	}
	if e := n.Get("enabled"); e != nil {
		on, ok := e.Value.(bool)
		if !ok {
			return "enabled must be a boolean"
		}
		if !on {
			a.Variable = ""
		}
	}
	return ""
}

// decodeAdaptiveStrategy reads adaptive_scale.strategy.
func decodeAdaptiveStrategy(st *Node, a *config.AdaptiveScale) string {
	if st.Kind != Map {
		return "strategy must be a mapping {type, step_policy, base_step, max_step_multiplier, step_percent}"
	}
	for _, k := range st.Keys {
		switch k.Name {
		case "type":
			if s, _ := stringOf(k.Value); s != "ramp_until_fail" {
				return fmt.Sprintf("strategy.type must be ramp_until_fail, not %s", describe(k.Value))
			}
		case "step_policy":
			s, _ := stringOf(k.Value)
			a.StepPolicy = s
		case "base_step", "max_step_multiplier":
			i, ok := intOf(k.Value)
			if !ok {
				return fmt.Sprintf("strategy.%s must be an integer", k.Name)
			}
			if k.Name == "base_step" {
				a.BaseStep = int(i)
			} else {
				a.MaxStepMultiplier = int(i)
			}
		case "step_percent":
			f, ok := floatOf(k.Value)
			if !ok {
				return "strategy.step_percent must be a number"
			}
			a.StepPercent = f
		default:
			return fmt.Sprintf("unknown adaptive_scale.strategy key %q", k.Name)
		}
	}
	return ""
}

// slaFilters reads SLA filters, checked by internal/sla, as strings in
// declaration order.
func slaFilters(n *Node) ([]string, string) {
	var out []string
	switch n.Kind {
	case Map:
		for _, m := range n.Keys {
			if m.Value.Kind != Map {
				return nil, fmt.Sprintf("%s must map statistics to {op: threshold}, e.g. {p95: {lt: 200}}", m.Name)
			}
			for _, st := range m.Value.Keys {
				if st.Value.Kind != Map {
					return nil, fmt.Sprintf("%s.%s must map operators to thresholds, e.g. {lt: 200}", m.Name, st.Name)
				}
				for _, op := range st.Value.Keys {
					th, ok := floatOf(op.Value)
					if !ok {
						return nil, fmt.Sprintf("%s.%s.%s must be a number", m.Name, st.Name, op.Name)
					}
					f, err := sla.New(m.Name, st.Name, op.Name, th)
					if err != nil {
						return nil, err.Error()
					}
					out = append(out, f.String())
				}
			}
		}
	case Seq:
		fs, err := sla.FromValue(n.Interface())
		if err != nil {
			return nil, err.Error()
		}
		for _, f := range fs {
			out = append(out, f.String())
		}
	default:
		return nil, "must be {metric: {stat: {op: threshold}}} or a list of {metric_tag, stat, op, threshold}, not " + describe(n)
	}
	return out, ""
}

// userCentricRate moves a user_centric phase's rate: key to the hidden
// user_centric_rate row: in that phase type, rate is the users' shared
// QPS, not --request-rate.
func userCentricRate(p *Node) {
	if t, _ := stringOf(p.Get("type")); t != "user_centric" {
		return
	}
	for i, k := range p.Keys {
		if k.Name == "rate" {
			p.Keys[i].Name = "user_centric_rate"
		}
	}
}
