package dataset

import (
	"crypto/sha256"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Stream names of the seeded random generators. Each purpose draws from its
// own stream, derived from the run's seed and the name, so changing one knob
// (say the output length) leaves every other draw (prompt lengths, prompt
// text, sampling order) unchanged. The names follow AIPerf's derived RNG
// identifiers where it has one.
const (
	StreamPromptLength = "dataset.prompt.length"
	StreamPromptCorpus = "dataset.prompt.corpus"
	StreamMaxTokens    = "composer.turn.max_tokens"
	StreamSessionID    = "dataset.session_id"
	streamRandom       = "dataset.sampler.random"
	streamShuffle      = "dataset.sampler.shuffle"
)

// newStream returns the random generator named name under seed: ChaCha8
// keyed by SHA-256 of "<seed>:<name>", the string AIPerf hashes to derive its
// per-component generators. The same seed and name always give the same
// sequence, on every platform.
func NewStream(seed uint64, name string) *rand.Rand {
	key := sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + ":" + name))
	return rand.New(rand.NewChaCha8(key))
}

// maxNormalTries bounds the rejection sampling in positiveNormalInt, as in
// AIPerf.
const MaxNormalTries = 10_000

// positiveNormalInt draws an integer of at least 1 from a normal
// distribution, following AIPerf's sample_positive_normal_integer: with
// stddev <= 0 it is max(1, round(mean)); otherwise draws below zero are
// rejected (up to maxNormalTries, then the mean is used) and the accepted
// draw is rounded up, so the result is at least 1. mean must be finite and
// non-negative. Results are capped at math.MaxInt32, far beyond any sequence
// length, so absurd deviations cannot overflow.
func PositiveNormalInt(rng *rand.Rand, mean, stddev float64) int {
	if stddev <= 0 {
		return toLength(math.RoundToEven(mean))
	}
	x := mean
	for range MaxNormalTries {
		if v := rng.NormFloat64()*stddev + mean; v >= 0 {
			x = v
			break
		}
	}
	return toLength(math.Ceil(x))
}

// toLength converts a whole float to a length in [1, math.MaxInt32].
func toLength(x float64) int {
	return int(max(1, min(x, math.MaxInt32)))
}

// NewUUID returns a random (version 4) UUID string drawn from rng.
func NewUUID(rng *rand.Rand) string { return record.UUIDv4(UUIDBytes(rng)) }

// UUIDBytes draws the 16 bytes NewUUID makes a UUID of.
func UUIDBytes(rng *rand.Rand) [16]byte {
	var b [16]byte
	for i := range 2 {
		v := rng.Uint64()
		for j := range 8 {
			b[8*i+j] = byte(v >> (8 * j))
		}
	}
	return b
}
