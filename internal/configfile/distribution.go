package configfile

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// dist is a distribution reduced to the {mean[, stddev]} mapping the
// field table decodes. collapsed names the distribution type when only
// its expected value survived (lognormal, multimodal, empirical).
type dist struct {
	*Node
	collapsed string
}

// distKinds are AIPerf 0.13's distribution types with the keys each
// takes besides type, min and max.
var distKinds = map[string][]string{
	"fixed":      {"value"},
	"normal":     {"mean", "stddev"},
	"lognormal":  {"mean", "median"},
	"multimodal": {"peaks"},
	"empirical":  {"points"},
}

// distKeys are every key a distribution may have, for suggestions.
var distKeys = []string{"type", "min", "max", "value", "mean", "stddev", "median", "peaks", "points"}

// distAliases are the class names AIPerf's discriminator also takes.
var distAliases = map[string]string{
	"FixedDistribution": "fixed", "NormalDistribution": "normal", "LogNormalDistribution": "lognormal",
	"log_normal": "lognormal", "MultimodalDistribution": "multimodal", "EmpiricalDistribution": "empirical",
}

// distribution normalises one distribution written in any of AIPerf
// 0.13's five shapes: a number (fixed), {value} (fixed), {mean, stddev}
// or {mean} (normal), {mean, median} (lognormal), {peaks: [...]}
// (multimodal, each peak a distribution with an optional weight) or
// {points: [{value, weight}]} (empirical); type: names the shape
// explicitly, otherwise AIPerf's key order decides (peaks, points,
// median, stddev, value, mean). min and max are checked and dropped.
//
// AIPerf's dataset code reads only a distribution's expected value and,
// for a normal, its stddev (it never draws from the others), so a
// lognormal, multimodal or empirical distribution becomes a fixed mean:
// truncated to a whole number when integral is set (lengths), as AIPerf's
// int(expected_value).
func distribution(v *Node, integral bool) (dist, string) {
	mean, stddev, kind, msg := distShape(v)
	if msg != "" {
		return dist{}, msg
	}
	m := newMap(v.Pos)
	switch kind {
	case "fixed", "normal":
		m.Set("mean", mean)
		if stddev != nil {
			m.Set("stddev", stddev)
		}
		return dist{Node: m}, ""
	}
	e, _ := floatOf(mean)
	if integral {
		e = math.Trunc(e)
	}
	m.Set("mean", &Node{Kind: Scalar, Value: e, Pos: v.Pos})
	return dist{Node: m, collapsed: kind}, ""
}

// distShape validates one distribution and returns its mean node (a
// computed scalar for the collapsed kinds), its stddev node (normal
// only, possibly nil) and its kind.
func distShape(v *Node) (mean, stddev *Node, kind, msg string) {
	switch v.Kind {
	case Scalar:
		return v, nil, "fixed", ""
	case Map:
	default:
		return nil, nil, "", "must be a number or a distribution mapping, not " + describe(v)
	}
	kind, msg = distKind(v)
	if msg != "" {
		return nil, nil, "", msg
	}
	allowed := append([]string{"type", "min", "max"}, distKinds[kind]...)
	for _, k := range v.Keys {
		if slices.Contains(allowed, k.Name) {
			continue
		}
		msg := fmt.Sprintf("unknown key %q for a %s distribution (%s)", k.Name, kind, strings.Join(distKinds[kind], ", "))
		if s := suggest(k.Name, distKeys); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, nil, "", msg
	}
	if msg := distBounds(v); msg != "" {
		return nil, nil, "", msg
	}
	num := func(key string) (float64, string) {
		n := v.Get(key)
		if n == nil {
			return 0, "a " + kind + " distribution needs " + key
		}
		f, ok := floatOf(n)
		if !ok {
			return 0, fmt.Sprintf("%s must be a number, not %s", key, describe(n))
		}
		return f, ""
	}
	switch kind {
	case "fixed":
		if _, msg := num("value"); msg != "" {
			return nil, nil, "", msg
		}
		return v.Get("value"), nil, kind, ""
	case "normal":
		if v.Get("mean") == nil {
			return nil, nil, "", "a normal distribution needs mean"
		}
		return v.Get("mean"), v.Get("stddev"), kind, ""
	case "lognormal":
		mu, msg := num("mean")
		if msg == "" {
			var med float64
			if med, msg = num("median"); msg == "" {
				switch {
				case mu <= 0 || med <= 0:
					msg = "a lognormal distribution needs a positive mean and median"
				case med > mu:
					msg = fmt.Sprintf("a lognormal median (%g) must not exceed its mean (%g)", med, mu)
				}
			}
		}
		if msg != "" {
			return nil, nil, "", msg
		}
		return scalarAt(mu, v.Pos), nil, kind, ""
	case "multimodal":
		e, msg := mixtureMean(v.Get("peaks"))
		if msg != "" {
			return nil, nil, "", msg
		}
		return scalarAt(e, v.Pos), nil, kind, ""
	default: // empirical
		e, msg := empiricalMean(v.Get("points"))
		if msg != "" {
			return nil, nil, "", msg
		}
		return scalarAt(e, v.Pos), nil, kind, ""
	}
}

// distKind is AIPerf's discriminator: an explicit type, else the first
// of peaks, points, median, stddev, value, mean present.
func distKind(v *Node) (string, string) {
	if t := v.Get("type"); t != nil {
		s, _ := stringOf(t)
		if a, ok := distAliases[s]; ok {
			s = a
		}
		if _, ok := distKinds[s]; ok {
			return s, ""
		}
		return "", fmt.Sprintf("unknown distribution type %s (fixed, normal, lognormal, multimodal or empirical)", describe(t))
	}
	for _, c := range []struct{ key, kind string }{
		{"peaks", "multimodal"}, {"points", "empirical"}, {"median", "lognormal"},
		{"stddev", "normal"}, {"value", "fixed"}, {"mean", "normal"},
	} {
		if v.Get(c.key) != nil {
			return c.kind, ""
		}
	}
	msg := "cannot tell the distribution from its keys: want a number, {mean, stddev}, {mean, median}, {peaks: [...]} or {points: [{value, weight}]}"
	for _, k := range v.Keys {
		if s := suggest(k.Name, distKeys); s != "" {
			return "", msg + fmt.Sprintf("; did you mean %q for %q?", s, k.Name)
		}
	}
	return "", msg
}

// distBounds checks min and max: finite numbers, min <= max.
func distBounds(v *Node) string {
	var bounds [2]*float64
	for i, k := range []string{"min", "max"} {
		n := v.Get(k)
		if n == nil {
			continue
		}
		f, ok := floatOf(n)
		if !ok {
			return fmt.Sprintf("distribution bound %s must be a finite number, not %s", k, describe(n))
		}
		bounds[i] = &f
	}
	if bounds[0] != nil && bounds[1] != nil && *bounds[0] > *bounds[1] {
		return fmt.Sprintf("distribution bounds invalid: min %g > max %g", *bounds[0], *bounds[1])
	}
	return ""
}

// mixtureMean is a multimodal distribution's expected value: its peaks'
// expected values weighted (weight defaults to 1; a peak is a
// distribution with an inline weight, or {distribution, weight}).
func mixtureMean(peaks *Node) (float64, string) {
	if peaks == nil || peaks.Kind != Seq || len(peaks.Items) < 2 {
		return 0, "a multimodal distribution needs peaks: a list of two or more distributions"
	}
	var sum, total float64
	for i, p := range peaks.Items {
		if p.Kind != Map {
			return 0, fmt.Sprintf("peak %d must be a distribution mapping, not %s", i, describe(p))
		}
		w, msg := weightOf(p, 0, fmt.Sprintf("peak %d", i))
		if msg != "" {
			return 0, msg
		}
		inner := p.Clone()
		inner.Delete("weight")
		if d := p.Get("distribution"); d != nil {
			if len(inner.Keys) != 1 {
				return 0, fmt.Sprintf("peak %d: distribution and weight are its only keys", i)
			}
			inner = d
		}
		mean, _, kind, msg := distShape(inner)
		if msg != "" {
			return 0, fmt.Sprintf("peak %d: %s", i, msg)
		}
		e, ok := floatOf(mean)
		if !ok {
			return 0, fmt.Sprintf("peak %d: the %s mean must be a number", i, kind)
		}
		sum += w * e
		total += w
	}
	if total <= 0 {
		return 0, "a multimodal distribution's weights must not all be zero"
	}
	return sum / total, ""
}

// empiricalMean is an empirical distribution's weighted mean.
func empiricalMean(points *Node) (float64, string) {
	if points == nil || points.Kind != Seq || len(points.Items) == 0 {
		return 0, "an empirical distribution needs points: a list of {value, weight}"
	}
	var sum, total float64
	for i, p := range points.Items {
		if p.Kind != Map {
			return 0, fmt.Sprintf("point %d must be {value, weight}, not %s", i, describe(p))
		}
		for _, k := range p.Keys {
			if k.Name != "value" && k.Name != "weight" {
				return 0, fmt.Sprintf("point %d: unknown key %q (value, weight)", i, k.Name)
			}
		}
		x, ok := floatOf(p.Get("value"))
		if p.Get("value") == nil || !ok {
			return 0, fmt.Sprintf("point %d needs a numeric value", i)
		}
		w, msg := weightOf(p, math.SmallestNonzeroFloat64, fmt.Sprintf("point %d", i))
		if msg != "" {
			return 0, msg
		}
		sum += w * x
		total += w
	}
	return sum / total, ""
}

// weightOf reads an optional weight (default 1) of at least least.
func weightOf(n *Node, least float64, what string) (float64, string) {
	wn := n.Get("weight")
	if wn == nil {
		return 1, ""
	}
	w, ok := floatOf(wn)
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s: weight must be a number, not %s", what, describe(wn))
	case w < least:
		if least > 0 {
			return 0, fmt.Sprintf("%s: weight must be positive", what)
		}
		return 0, fmt.Sprintf("%s: weight must not be negative", what)
	}
	return w, ""
}

func scalarAt(f float64, p Pos) *Node { return &Node{Kind: Scalar, Value: f, Pos: p} }
