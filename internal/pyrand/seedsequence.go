package pyrand

// Constants of numpy's SeedSequence (numpy/random/bit_generator.pyx), after
// Melissa O'Neill's seed_seq_fe.
const (
	ssPoolSize = 4
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
)

// seedSequence is numpy's SeedSequence(entropy) for an integer entropy and
// no spawn key: the entropy pool it mixes, from which generateState draws.
type seedSequence struct {
	pool [ssPoolSize]uint32
}

// newSeedSequence mixes the 32-bit words of entropy (least significant
// first; one word for 0) into the pool, as SeedSequence.mix_entropy does.
func newSeedSequence(entropy uint64) *seedSequence {
	words := []uint32{uint32(entropy)}
	if hi := uint32(entropy >> 32); hi != 0 {
		words = append(words, hi)
	}
	s := &seedSequence{}
	hashConst := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		r ^= r >> ssXShift
		return r
	}
	for i := range s.pool {
		var w uint32
		if i < len(words) {
			w = words[i]
		}
		s.pool[i] = hashmix(w)
	}
	for src := range s.pool {
		for dst := range s.pool {
			if src != dst {
				s.pool[dst] = mix(s.pool[dst], hashmix(s.pool[src]))
			}
		}
	}
	for src := ssPoolSize; src < len(words); src++ {
		for dst := range s.pool {
			s.pool[dst] = mix(s.pool[dst], hashmix(words[src]))
		}
	}
	return s
}

// generateState returns SeedSequence.generate_state(n, np.uint32).
func (s *seedSequence) generateState(n int) []uint32 {
	out := make([]uint32, n)
	hashConst := uint32(ssInitB)
	for i := range out {
		v := s.pool[i%ssPoolSize]
		v ^= hashConst
		hashConst *= ssMultB
		v *= hashConst
		v ^= v >> ssXShift
		out[i] = v
	}
	return out
}

// generateState64 returns generate_state(n, np.uint64): pairs of 32-bit
// words, little-endian.
func (s *seedSequence) generateState64(n int) []uint64 {
	w := s.generateState(2 * n)
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(w[2*i]) | uint64(w[2*i+1])<<32
	}
	return out
}
