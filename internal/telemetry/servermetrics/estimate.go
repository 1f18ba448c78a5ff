package servermetrics

import (
	"math"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Estimates are percentile estimates of a histogram's observations, in the
// histogram's own unit.
type Estimates struct {
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
}

// Percentile estimation follows AIPerf 0.13's "polynomial histogram"
// estimator (after HistogramTools, arXiv 2504.00001), which is much closer
// than Prometheus' linear interpolation when observations cluster inside a
// bucket or spill into +Inf:
//
//  1. Learn where observations sit inside each bucket: whenever every
//     observation of one scrape interval landed in a single bucket, that
//     interval's sum/count is an exact mean for that bucket. The means are
//     averaged (weighted by count) and, from three intervals on, their
//     sample variance is kept.
//  2. Estimate each finite bucket's sum from its learned mean (or its
//     midpoint), and give the +Inf bucket whatever is left of the exact
//     total sum, spread evenly above the last finite bound.
//  3. Place the finite observations: evenly across the bucket, shifted to
//     its learned mean; with a learned variance, as a two-point mass (very
//     tight), a blend of uniform and variance-shaped (tight and centred),
//     or variance-shaped (otherwise); a bucket holding 95 % of everything
//     is centred on the overall mean.
//  4. Nudge each bucket's observations so their total matches the exact
//     finite sum (each bucket by its share, at most 40 % of its width).
//  5. Take numpy-linear percentiles of the placed observations.
//
// At most maxObservations observations are placed; larger histograms are
// scaled down proportionally (sum included). testdata/aiperf_stats.json
// holds AIPerf's own results for these steps on synthetic series.
const maxObservations = 100_000

// bucketMeans is what step 1 learns about one bucket.
type bucketMeans struct {
	observations int64
	weightedSum  float64
	means        []float64
}

func (b *bucketMeans) mean() (float64, bool) {
	if b == nil || b.observations == 0 {
		return 0, false
	}
	return b.weightedSum / float64(b.observations), true
}

// variance is the sample variance of the interval means, known from three
// intervals on.
func (b *bucketMeans) variance() (float64, bool) {
	if b == nil || len(b.means) < 3 {
		return 0, false
	}
	var m float64
	for _, v := range b.means {
		m += v
	}
	m /= float64(len(b.means))
	var ss float64
	for _, v := range b.means {
		ss += (v - m) * (v - m)
	}
	return ss / float64(len(b.means)-1), true
}

// learnBuckets walks the snapshots from start to the series' end and
// learns each bucket's mean from the intervals whose observations all fell
// in it (step 1), keyed by bucket index.
func learnBuckets(h *histSeries, start int) map[int]*bucketMeans {
	out := map[int]*bucketMeans{}
	nb := len(h.les)
	per := make([]float64, nb)
	for i := start + 1; i < len(h.ts); i++ {
		countDelta := int64(h.counts[i] - h.counts[i-1])
		if countDelta <= 0 {
			continue
		}
		sumDelta := h.sums[i] - h.sums[i-1]
		active, only := 0, -1
		for k := range nb {
			d := max(h.cum[i][k]-h.cum[i-1][k], 0)
			if k > 0 {
				d -= max(h.cum[i][k-1]-h.cum[i-1][k-1], 0)
			}
			per[k] = max(d, 0)
			if per[k] > 0 {
				active++
				only = k
			}
		}
		if active != 1 {
			continue
		}
		b := out[only]
		if b == nil {
			b = &bucketMeans{}
			out[only] = b
		}
		mean := sumDelta / float64(countDelta)
		b.observations += countDelta
		b.weightedSum += mean * float64(countDelta)
		b.means = append(b.means, mean)
	}
	return out
}

// bucketBounds returns the lower and upper bound of finite bucket k (the
// first starts at 0).
func bucketBounds(bounds []float64, k int) (float64, float64) {
	if k == 0 {
		return 0, bounds[0]
	}
	return bounds[k-1], bounds[k]
}

// estimatePercentiles runs steps 2 to 5 on the window's cumulative bucket
// increases (keyed like les), nil when there is nothing to estimate.
func estimatePercentiles(les []string, bounds []float64, cumulative []float64, learned map[int]*bucketMeans, totalSum float64, totalCount int64) *Estimates {
	if totalCount <= 0 || len(les) == 0 || math.IsNaN(totalSum) || math.IsInf(totalSum, 0) || totalSum < 0 {
		return nil
	}
	if totalSum == 0 {
		return &Estimates{}
	}
	nFinite := len(bounds)
	if math.IsInf(bounds[nFinite-1], 1) {
		nFinite--
	}
	if nFinite == 0 {
		return nil
	}
	finiteBounds := bounds[:nFinite]
	maxFinite := finiteBounds[nFinite-1]

	// Per-bucket counts, the +Inf bucket last.
	per := make([]float64, nFinite)
	prev := 0.0
	for k := range nFinite {
		per[k] = cumulative[k] - prev
		prev = cumulative[k]
	}
	hasInf := nFinite < len(bounds)
	infCount := 0.0
	if hasInf {
		infCount = cumulative[len(bounds)-1] - prev
	}
	total := infCount
	for _, c := range per {
		total += c
	}
	if total > maxObservations {
		ratio := maxObservations / total
		for k := range per {
			per[k] *= ratio
		}
		infCount *= ratio
		totalSum *= ratio
	}
	nInf := 0
	if infCount > 0 {
		nInf = int(math.Ceil(infCount))
	}

	// Step 2: estimated finite sum, then the +Inf observations.
	var finiteSum float64
	for k, c := range per {
		if c <= 0 {
			continue
		}
		lo, hi := bucketBounds(finiteBounds, k)
		mean := (lo + hi) / 2
		if m, ok := learned[k].mean(); ok && lo < m && m < hi {
			mean = m
		}
		finiteSum += c * mean
	}
	inf := infObservations(totalSum, finiteSum, nInf, maxFinite)
	finiteTarget := totalSum - sumOf(inf)

	obs := finiteObservations(finiteBounds, per, finiteTarget, learned)
	obs = append(obs, inf...)
	if len(obs) == 0 {
		return nil
	}
	slices.Sort(obs)
	p := func(q float64) float64 { return stats.Percentile(obs, q) }
	return &Estimates{P1: p(1), P5: p(5), P10: p(10), P25: p(25), P50: p(50), P75: p(75), P90: p(90), P95: p(95), P99: p(99)}
}

func sumOf(v []float64) float64 { return stats.Sum(v) }

// infObservations spreads the sum the finite buckets do not explain over n
// observations above maxFinite (evenly from maxFinite, so their mean is the
// back-calculated one); an impossible back-calculation places them at 1.5
// times maxFinite.
func infObservations(totalSum, finiteSum float64, n int, maxFinite float64) []float64 {
	if n <= 0 {
		return nil
	}
	avg := maxFinite * 1.5
	if rest := totalSum - finiteSum; rest > 0 {
		if a := rest / float64(n); a > maxFinite {
			avg = a
		}
	}
	if n == 1 {
		return []float64{avg}
	}
	upper := 2*avg - maxFinite
	if upper <= maxFinite {
		upper = maxFinite * 2
	}
	return linspace(maxFinite, upper, n)
}

// linspace is numpy.linspace(lo, hi, n): n evenly spaced values, both ends
// included.
func linspace(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	step := (hi - lo) / float64(n-1)
	for i := range n {
		out[i] = lo + float64(i)*step
	}
	out[n-1] = hi
	return out
}

// placed is one bucket's range in the observation slice.
type placed struct {
	start, count int
	lo, hi       float64
}

// finiteObservations places the finite buckets' observations (steps 3 and
// 4) so that they sum to target.
func finiteObservations(bounds, per []float64, target float64, learned map[int]*bucketMeans) []float64 {
	total := 0.0
	for _, c := range per {
		total += c
	}
	if total > maxObservations {
		ratio := maxObservations / total
		per = slices.Clone(per)
		for k := range per {
			per[k] *= ratio
		}
		target *= ratio
		total = 0
		for _, c := range per {
			total += c
		}
	}
	avg := 0.0
	dominant := -1
	if total > 0 {
		avg = target / total
		maxCount := slices.Max(per)
		if maxCount/total >= 0.95 {
			dominant = slices.Index(per, maxCount)
		}
	}
	ints := make([]int, len(per))
	n := 0
	for k, c := range per {
		ints[k] = int(c)
		n += ints[k]
	}
	if n <= 0 {
		return nil
	}
	obs := make([]float64, 0, n)
	var ranges []placed
	for k, cnt := range ints {
		if cnt <= 0 {
			continue
		}
		lo, hi := bucketBounds(bounds, k)
		width := hi - lo
		mid := (lo + hi) / 2
		start := len(obs)
		mean, hasMean := learned[k].mean()
		hasMean = hasMean && lo < mean && mean < hi
		variance, hasVar := learned[k].variance()
		switch {
		case hasMean && hasVar && variance > 0:
			std := math.Sqrt(variance)
			spread := 4 * std / width
			offset := math.Abs(mean-mid) / width
			switch {
			case spread < 0.01:
				obs = append(obs, twoPointMass(cnt, lo, hi, mean, variance)...)
			case spread < 0.2 && offset < 0.3:
				obs = append(obs, blended(cnt, lo, hi, mean, std)...)
			default:
				obs = append(obs, varianceShaped(cnt, lo, hi, mean, std)...)
			}
		default:
			center := mid
			if hasMean {
				center = mean
			}
			if k == dominant && lo < avg && avg < hi {
				center = avg
			}
			shift := center - mid
			for i := range cnt {
				f := (float64(i) + 0.5) / float64(cnt)
				obs = append(obs, clamp(lo+width*f+shift, lo, hi))
			}
		}
		ranges = append(ranges, placed{start, cnt, lo, hi})
	}

	// Step 4: match the target sum.
	generated := sumOf(obs)
	if generated <= 0 || target <= 0 {
		return obs
	}
	diff := target - generated
	if math.Abs(diff)/target < 0.001 {
		return obs
	}
	for _, r := range ranges {
		part := obs[r.start : r.start+r.count]
		weight := sumOf(part) / generated
		perObs := diff * weight / float64(r.count)
		maxShift := (r.hi - r.lo) * 0.4
		shift := clamp(perObs, -maxShift, maxShift)
		for i := range part {
			part[i] = clamp(part[i]+shift, r.lo, r.hi)
		}
	}
	return obs
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// twoPointMass is the F3 distribution for a very tight bucket: mass at the
// lower bound and at one point above the mean, matching mean and variance.
func twoPointMass(n int, lo, hi, mean, variance float64) []float64 {
	a := hi
	if mean-lo > 0 {
		a = mean + variance/(mean-lo)
	}
	a = clamp(a, lo, hi)
	px := 0.5
	if den := variance + (mean-lo)*(mean-lo); den > 0 {
		px = variance / den
	}
	px = clamp(px, 0, 1)
	nx := int(float64(n) * px)
	out := make([]float64, n)
	for i := range out {
		if i < nx {
			out[i] = lo
		} else {
			out[i] = a
		}
	}
	return out
}

// varianceShaped places n observations from the lower bound through the
// mean to the upper bound, scaled by the learned standard deviation (at
// most three of them either side).
func varianceShaped(n int, lo, hi, mean, std float64) []float64 {
	below, above := 3.0, 3.0
	if std > 0 {
		below, above = min((mean-lo)/std, 3), min((hi-mean)/std, 3)
	}
	out := make([]float64, n)
	for i := range n {
		f := (float64(i) + 0.5) / float64(n)
		var v float64
		if f < 0.5 {
			v = mean - below*std*(1-2*f)
		} else {
			v = mean + above*std*(2*f-1)
		}
		out[i] = clamp(v, lo, hi)
	}
	return out
}

// blended averages a uniform placement shifted to the mean with the
// variance-shaped one.
func blended(n int, lo, hi, mean, std float64) []float64 {
	width, mid := hi-lo, (lo+hi)/2
	shaped := varianceShaped(n, lo, hi, mean, std)
	out := make([]float64, n)
	for i := range n {
		f := (float64(i) + 0.5) / float64(n)
		u := clamp(lo+width*f+(mean-mid), lo, hi)
		out[i] = clamp(0.5*u+0.5*shaped[i], lo, hi)
	}
	return out
}
