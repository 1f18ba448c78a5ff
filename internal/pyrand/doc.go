// Package pyrand reproduces, bit for bit, the random generators AIPerf draws
// from: CPython's random.Random (MT19937 with CPython's seeding and its
// random, getrandbits, randrange, gauss, expovariate and gammavariate),
// numpy's default_rng (a SeedSequence-seeded PCG64 Generator: random,
// integers, shuffle, standard_normal, normal, lognormal, bytes, choice with
// probabilities) and numpy's legacy RandomState (MT19937: random_sample,
// randint), plus AIPerf's scheme for deriving one generator per purpose from
// the run's seed (Derive).
//
// Same seed, same draws as Python: that is what makes a seeded synthetic
// dataset byte-identical to AIPerf's. The integer and bit-level paths are
// exact by construction; the floating-point transforms (gauss,
// expovariate, gammavariate) use Go's math functions, which agree with
// glibc's to the last bit in all but rare cases (at most 1 ulp), far below
// what the integer rounding that follows them can see. The normal
// ziggurat's tables are computed here rather than copied from numpy, so a
// normal draw may differ from numpy's by a few parts in 1e13 (never in
// which draws it takes from the stream).
//
// Reference sequences from CPython 3.11 and numpy 2.4 are checked in as
// testdata/reference.json (testdata/gen_reference.py regenerates them), so
// the tests need no Python.
//
// Generators are not safe for concurrent use. The package is a leaf: it
// imports only the standard library.
package pyrand
