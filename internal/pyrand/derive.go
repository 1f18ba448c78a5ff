package pyrand

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strconv"
)

// DeriveSeed is the seed AIPerf gives the generator it derives for
// identifier under the run's root seed: the first 8 bytes, big-endian, of
// SHA-256("<root>:<identifier>").
func DeriveSeed(root uint64, identifier string) uint64 {
	sum := sha256.Sum256([]byte(strconv.FormatUint(root, 10) + ":" + identifier))
	return binary.BigEndian.Uint64(sum[:8])
}

// Stream is AIPerf's RandomGenerator: one purpose's pair of Python and
// numpy generators, both seeded with the same derived seed. Each backend is
// created on first use; creating one draws nothing, so this is the same
// sequence as AIPerf's eager construction.
type Stream struct {
	seed uint64
	py   *Random
	np   *Numpy
}

// Derive returns the Stream AIPerf's rng.derive(identifier) gives under
// root (its --random-seed).
func Derive(root uint64, identifier string) *Stream {
	return &Stream{seed: DeriveSeed(root, identifier)}
}

// Seed returns the derived seed both backends were seeded with.
func (s *Stream) Seed() uint64 { return s.seed }

// Py returns the Python random.Random backend.
func (s *Stream) Py() *Random {
	if s.py == nil {
		s.py = NewRandom(s.seed)
	}
	return s.py
}

// NP returns the numpy default_rng backend.
func (s *Stream) NP() *Numpy {
	if s.np == nil {
		s.np = NewNumpy(s.seed)
	}
	return s.np
}

// maxNormalTries bounds SampleNormal's rejection sampling, as in AIPerf.
const maxNormalTries = 10_000

// SampleNormal is RandomGenerator.sample_normal: Python gauss(mean, stddev)
// drawn until it falls in [lower, upper], at most 10,000 times, then the
// mean clamped to the bounds.
func (s *Stream) SampleNormal(mean, stddev, lower, upper float64) float64 {
	py := s.Py()
	for range maxNormalTries {
		if n := py.Gauss(mean, stddev); lower <= n && n <= upper {
			return n
		}
	}
	return max(lower, min(upper, mean))
}

// SamplePositiveNormalInteger is RandomGenerator.
// sample_positive_normal_integer: with stddev <= 0, max(1, round(mean))
// (round half to even, as Python's round); otherwise a normal draw of at
// least 0, rounded up and at least 1.
func (s *Stream) SamplePositiveNormalInteger(mean, stddev float64) int {
	if stddev <= 0 {
		return toInt(max(1, math.RoundToEven(mean)))
	}
	return toInt(max(1, math.Ceil(s.SampleNormal(mean, stddev, 0, math.Inf(1)))))
}

// toInt converts a whole float64 to an int, saturating far beyond any
// length or count a benchmark asks for.
func toInt(x float64) int { return int(min(x, math.MaxInt32)) }
