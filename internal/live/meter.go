package live

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"
)

// Signal is one headline metric the Meter records.
type Signal struct {
	Tag, Header, Unit string
	Kind              Kind
}

// SampleCap bounds the values a bucket keeps per Distribution signal.
// Past it the bucket keeps a uniform reservoir sample, so the rolling
// percentiles stay cheap at any request rate; Count still counts every
// value.
const SampleCap = 2048

// Bucket is what finished during one Meter interval. A published Bucket is
// immutable.
type Bucket struct {
	// Seq numbers the meter's buckets from 1.
	Seq uint64
	// Start and End bound the bucket (run offsets).
	Start, End time.Duration
	// Values holds, per signal, the Distribution values kept (at most
	// SampleCap, a uniform sample of all of them), sorted once the bucket
	// is published; nil for Rate signals.
	Values [][]float64
	// Count is, per signal, the number of values or the sum of the counts
	// added to the bucket.
	Count []float64
	// Errors are the phase's error counts by type up to End, most frequent
	// first (cumulative, not per bucket).
	Errors []ErrorCount
	// medians are, per Distribution signal, the median of Values (NaN
	// when there are none), computed once as the bucket is published:
	// every snapshot's series shows each kept bucket's median, and a
	// published bucket never changes. nil on a bucket never published.
	medians []float64
}

// median is the median of Distribution signal i's values: the one
// computed at publication, else computed now.
func (b *Bucket) median(i int) float64 {
	if b.medians != nil {
		return b.medians[i]
	}
	return percentile(sortedCopy(b.Values[i]), 50)
}

// sorted is Distribution signal i's values in order: Values itself once
// published, else a sorted copy.
func (b *Bucket) sorted(i int) []float64 {
	if b.medians != nil {
		return b.Values[i]
	}
	return sortedCopy(b.Values[i])
}

// Meter records the headline signals of one phase in fixed-width time
// buckets. Add, Count, Error and Roll belong to one goroutine (the writer);
// Recent may be called from any goroutine at any time: it reads only
// published buckets, through atomic loads, and never blocks the writer.
type Meter struct {
	signals []Signal
	ring    []atomic.Pointer[Bucket]
	seq     atomic.Uint64 // buckets published

	// Writer-owned.
	cur    *Bucket
	errs   map[string]int
	rng    uint64 // splitmix64 state for the reservoir
	nextSq uint64
}

// NewMeter returns a meter for signals that keeps the latest keep buckets
// (at least 1), the first starting at start.
func NewMeter(signals []Signal, keep int, start time.Duration) *Meter {
	m := &Meter{
		signals: slices.Clone(signals),
		ring:    make([]atomic.Pointer[Bucket], max(keep, 1)),
		errs:    map[string]int{},
		rng:     0x9e3779b97f4a7c15,
	}
	m.cur = m.newBucket(start)
	return m
}

// Signals returns the meter's signals, in index order.
func (m *Meter) Signals() []Signal { return m.signals }

func (m *Meter) newBucket(start time.Duration) *Bucket {
	m.nextSq++
	b := &Bucket{Seq: m.nextSq, Start: start, Values: make([][]float64, len(m.signals)), Count: make([]float64, len(m.signals))}
	return b
}

// Add records value v of Distribution signal i in the current bucket.
func (m *Meter) Add(i int, v float64) {
	b := m.cur
	b.Count[i]++
	vals := b.Values[i]
	if len(vals) < SampleCap {
		b.Values[i] = append(vals, v)
		return
	}
	// Reservoir sampling (Algorithm R): the n-th value replaces a kept
	// one with probability SampleCap/n.
	if j := m.rand() % uint64(b.Count[i]); j < SampleCap {
		vals[j] = v
	}
}

// Count adds n to Rate signal i in the current bucket.
func (m *Meter) Count(i int, n float64) { m.cur.Count[i] += n }

// Error counts one failed request of type kind.
func (m *Meter) Error(kind string) { m.errs[kind]++ }

// Roll closes the current bucket at end, publishes it, and starts the next
// one there.
func (m *Meter) Roll(end time.Duration) {
	b := m.cur
	b.End = end
	if len(m.errs) > 0 {
		b.Errors = sortedErrors(m.errs)
	}
	b.medians = make([]float64, len(m.signals))
	for i, s := range m.signals {
		b.medians[i] = nan
		if s.Kind != Rate {
			slices.Sort(b.Values[i]) // the kept sample's order means nothing
			b.medians[i] = percentile(b.Values[i], 50)
		}
	}
	m.ring[int(b.Seq%uint64(len(m.ring)))].Store(b)
	m.seq.Store(b.Seq)
	m.cur = m.newBucket(end)
}

// Published is the Seq of the latest published bucket (0 before the
// first Roll).
func (m *Meter) Published() uint64 { return m.seq.Load() }

// Recent returns up to n of the latest published buckets, oldest first.
// A bucket overwritten while Recent runs is left out, so the result is
// always a run of consecutive buckets ending at the latest one it saw.
func (m *Meter) Recent(n int) []*Bucket {
	last := m.seq.Load()
	n = min(n, len(m.ring), int(last))
	out := make([]*Bucket, 0, n)
	for sq := last - uint64(n) + 1; sq <= last && n > 0; sq++ {
		b := m.ring[int(sq%uint64(len(m.ring)))].Load()
		if b == nil || b.Seq != sq {
			out = out[:0] // overwritten by a newer bucket: keep only what follows
			continue
		}
		out = append(out, b)
	}
	return out
}

func (m *Meter) rand() uint64 {
	m.rng += 0x9e3779b97f4a7c15
	z := m.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func sortedErrors(errs map[string]int) []ErrorCount {
	out := make([]ErrorCount, 0, len(errs))
	for k, n := range errs {
		out = append(out, ErrorCount{Type: k, Count: n})
	}
	slices.SortFunc(out, func(a, b ErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	return out
}
