package verdict

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// Point is one concurrency of a sweep: its label, concurrency and results.
type Point struct {
	Label       string
	Concurrency float64
	Metrics     sla.Source
}

// SweepReport is the verdicts of a concurrency sweep: batch and capacity
// across the points, chat and RAG per point (the per-user experience at
// each load), each point with its derived figures.
type SweepReport struct {
	Verdicts []Verdict       `json:"use_cases"`
	Points   []PointVerdicts `json:"points"`
}

// PointVerdicts are one sweep point's per-point verdicts.
type PointVerdicts struct {
	Label       string    `json:"label"`
	Concurrency float64   `json:"concurrency"`
	Verdicts    []Verdict `json:"use_cases"`
	Derived     Derived   `json:"derived"`
}

// EvaluateSweep reads a sweep over concurrency. Points without a
// concurrency are left out; they are ordered by concurrency.
func EvaluateSweep(points []Point, cases []UseCase) SweepReport {
	var pts []Point
	for _, p := range points {
		if p.Concurrency > 0 && p.Metrics != nil {
			pts = append(pts, p)
		}
	}
	slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.Concurrency, b.Concurrency) })
	var rep SweepReport
	var perPoint []UseCase
	for _, c := range cases {
		switch c {
		case Batch:
			rep.Verdicts = append(rep.Verdicts, batchSweep(pts))
		case Capacity:
			rep.Verdicts = append(rep.Verdicts, capacitySweep(pts))
		default:
			perPoint = append(perPoint, c)
		}
	}
	for _, p := range pts {
		r := Evaluate(Run{Metrics: p.Metrics, Concurrency: p.Concurrency}, perPoint)
		rep.Points = append(rep.Points, PointVerdicts{Label: p.Label, Concurrency: p.Concurrency, Verdicts: r.Verdicts, Derived: r.Derived})
	}
	return rep
}

// obs is one point's value of the metric a sweep rule follows.
type obs struct {
	c, v float64 // concurrency, value
	p    Point
}

// series is stat of metric at each point that has it, positive, in the
// points' (concurrency) order.
func series(pts []Point, metric, stat string) []obs {
	var xs []obs
	for _, p := range pts {
		if v, ok := value(p.Metrics, metric, stat); ok && v > 0 {
			xs = append(xs, obs{p.Concurrency, v, p})
		}
	}
	return xs
}

// batchSweep finds where output throughput stops rising: the first step
// up in concurrency that gains less than BatchMinGain.
func batchSweep(pts []Point) Verdict {
	v := Verdict{UseCase: Batch, Threshold: batchThreshold}
	xs := series(pts, tagOutput, "avg")
	if len(xs) < 2 {
		v.Status, v.Message = Unknown, "needs output_token_throughput at two or more concurrencies"
		return v
	}
	best := xs[0]
	for _, x := range xs[1:] {
		if x.v > best.v {
			best = x
		}
	}
	v.Primary = measured(best.p.Metrics, tagOutput, "avg", unitPerNode, PerNode)
	v.Secondary = measured(best.p.Metrics, tagRequests, "avg", unitRequests, PerNode)
	for i := 1; i < len(xs); i++ {
		prev, cur := xs[i-1], xs[i]
		gain := cur.v/prev.v - 1
		if gain < BatchMinGain {
			v.Status = Warn
			v.Checked = &Figure{Metric: "output_token_throughput gain", Stat: fmt.Sprintf("concurrency %s -> %s", num(prev.c), num(cur.c)),
				Value: gain * 100, Unit: "%", Scope: PerNode, Basis: "derived"}
			v.Message = fmt.Sprintf("output throughput stops rising at concurrency %s (%+.1f%% from %s); the highest is %s tokens/s at concurrency %s, more users only add latency",
				num(cur.c), gain*100, num(prev.c), num(best.v), num(best.c))
			return v
		}
	}
	last, prev := xs[len(xs)-1], xs[len(xs)-2]
	gain := last.v/prev.v - 1
	v.Status = OK
	v.Checked = &Figure{Metric: "output_token_throughput gain", Stat: fmt.Sprintf("concurrency %s -> %s", num(prev.c), num(last.c)),
		Value: gain * 100, Unit: "%", Scope: PerNode, Basis: "derived"}
	v.Message = fmt.Sprintf("output throughput still rises at the highest concurrency, %s (%+.1f%%): the node is not saturated yet", num(last.c), gain*100)
	return v
}

// capacitySweep measures TTFT p99 degradation against the lowest
// concurrency and reports the capacity: the highest concurrency before it
// passes 2x.
func capacitySweep(pts []Point) Verdict {
	v := Verdict{UseCase: Capacity, Threshold: capacityThreshold}
	xs := series(pts, tagTTFT, "p99")
	if len(xs) < 2 {
		v.Status, v.Message = Unknown, "needs TTFT p99 at two or more concurrencies (a streaming sweep)"
		return v
	}
	base := xs[0]
	capIdx := 0
	for i := 1; i < len(xs); i++ {
		if xs[i].v/base.v > CapacityMaxDegradation {
			break
		}
		capIdx = i
	}
	at := xs[capIdx]
	v.Primary = measured(at.p.Metrics, tagTotal, "avg", unitPerNode, PerNode)
	v.Secondary = measured(at.p.Metrics, tagTTFT, "p99", unitMS, PerRequest)
	if capIdx+1 < len(xs) {
		over := xs[capIdx+1]
		d := over.v / base.v
		v.Status = Warn
		v.Checked = &Figure{Metric: "time_to_first_token p99 / baseline", Stat: "concurrency " + num(over.c), Value: d, Unit: "x", Scope: PerRequest, Basis: "derived"}
		v.Message = fmt.Sprintf("TTFT p99 degrades %sx at concurrency %s (baseline %s ms at %s); capacity is concurrency %s",
			num(d), num(over.c), num(base.v), num(base.c), num(at.c))
		return v
	}
	d := at.v / base.v
	v.Status = OK
	v.Checked = &Figure{Metric: "time_to_first_token p99 / baseline", Stat: "concurrency " + num(at.c), Value: d, Unit: "x", Scope: PerRequest, Basis: "derived"}
	v.Message = fmt.Sprintf("TTFT p99 stays within 2x of its %s ms baseline up to concurrency %s (%sx): capacity is at least that", num(base.v), num(at.c), num(d))
	return v
}
