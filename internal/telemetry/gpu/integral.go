package gpu

import "math"

// point is one valid (non-NaN) sample of one field.
type point struct {
	at int64
	v  float64
}

// points returns a field's valid samples in time order.
func (g *series) points(field string) []point {
	col := g.vals[field]
	out := make([]point, 0, len(col))
	for i, v := range col {
		if !math.IsNaN(v) {
			out = append(out, point{g.ts[i], v})
		}
	}
	return out
}

// EnergyOver sums the energy every GPU of platform used over exactly
// [start, end] (Unix ns), in joules, and counts the GPUs it could measure.
//
// It is the integral of the sampled power over the window and nothing
// else: scrapes come every few hundred ms, so a counter difference taken
// between the scrape before start and the scrape after end can count two
// scrape intervals more than the window, which on a sub-second run
// multiplies the energy. So the energy counter is read at each bound,
// interpolated linearly between the two samples around it (between two
// scrapes it rises at the power held since the first). A bound past a
// GPU's last sample extends the counter at the last power sample (the
// power the GPU is reported to hold), or the last interval's rate without
// power; a bound before its first sample, symmetrically. A GPU with power
// but no energy counter gets the integral of its power samples, each held
// until the next.
func (s *Store) EnergyOver(start, end int64, platform string) (float64, int) {
	ef, pf := EnergyField(platform), PowerField(platform)
	if ef == "" || end <= start {
		return 0, 0
	}
	var total float64
	n := 0
	s.each(platform, func(g *series) {
		power := g.points(pf)
		if counter := g.points(ef); len(counter) > 0 {
			lo := counterAt(counter, power, start)
			hi := counterAt(counter, power, end)
			total += max(hi-lo, 0) * MJ
			n++
			return
		}
		if len(power) > 0 {
			total += heldIntegral(power, start, end)
			n++
		}
	})
	return total, n
}

// counterAt is the energy counter (MJ) at t, interpolated between the
// samples around t or extended past them at the nearest power (W).
func counterAt(c, power []point, t int64) float64 {
	first, last := c[0], c[len(c)-1]
	switch {
	case t >= last.at:
		rate := 0.0 // MJ per ns
		if p, ok := powerAtOrBefore(power, last.at); ok {
			rate = p / MJ / 1e9
		} else if len(c) > 1 {
			prev := c[len(c)-2]
			rate = (last.v - prev.v) / float64(last.at-prev.at)
		}
		return last.v + rate*float64(t-last.at)
	case t <= first.at:
		rate := 0.0
		if len(power) > 0 {
			rate = power[0].v / MJ / 1e9
		} else if len(c) > 1 {
			rate = (c[1].v - first.v) / float64(c[1].at-first.at)
		}
		return first.v - rate*float64(first.at-t)
	}
	i := searchAfter(c, t) // c[i-1].at <= t < c[i].at
	a, b := c[i-1], c[i]
	return a.v + (b.v-a.v)*float64(t-a.at)/float64(b.at-a.at)
}

// powerAtOrBefore is the last power sample at or before t; the first one
// when every sample is later.
func powerAtOrBefore(power []point, t int64) (float64, bool) {
	if len(power) == 0 {
		return 0, false
	}
	i := searchAfter(power, t)
	if i == 0 {
		return power[0].v, true
	}
	return power[i-1].v, true
}

// searchAfter is the index of the first point later than t.
func searchAfter(ps []point, t int64) int {
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].at <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// heldIntegral integrates power samples (W) over [start, end] in joules,
// each sample held until the next; the first sample also covers the time
// before it, the last the time after it.
func heldIntegral(power []point, start, end int64) float64 {
	var j float64
	for i, p := range power {
		from, to := p.at, end
		if i == 0 {
			from = start
		}
		if i+1 < len(power) {
			to = power[i+1].at
		}
		from, to = max(from, start), min(to, end)
		if to > from {
			j += p.v * float64(to-from) / 1e9
		}
	}
	return j
}
