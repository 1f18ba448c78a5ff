package pyrand

import "math/bits"

// uint128 is an unsigned 128-bit integer.
type uint128 struct{ hi, lo uint64 }

func (a uint128) mul(b uint128) uint128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	hi += a.hi*b.lo + a.lo*b.hi
	return uint128{hi, lo}
}

func (a uint128) add(b uint128) uint128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return uint128{a.hi + b.hi + carry, lo}
}

// pcgMultiplier is PCG's default 128-bit LCG multiplier.
var pcgMultiplier = uint128{0x2360ed051fc65da4, 0x4385df649fccf645}

// pcg64 is numpy's PCG64 bit generator: a 128-bit LCG with the XSL-RR
// output function, plus numpy's one-word buffer that serves 32-bit draws
// from the two halves of a 64-bit one.
type pcg64 struct {
	state, inc uint128
	has32      bool
	buf32      uint32
}

// newPCG64 seeds PCG64 as numpy's PCG64(seed) does: four 64-bit words from
// the SeedSequence, the first two the initial state (high word first), the
// last two the stream.
func newPCG64(seed uint64) *pcg64 {
	v := newSeedSequence(seed).generateState64(4)
	initState, initSeq := uint128{v[0], v[1]}, uint128{v[2], v[3]}
	p := &pcg64{}
	p.inc = uint128{initSeq.hi<<1 | initSeq.lo>>63, initSeq.lo<<1 | 1}
	p.step()
	p.state = p.state.add(initState)
	p.step()
	return p
}

func (p *pcg64) step() { p.state = p.state.mul(pcgMultiplier).add(p.inc) }

// next64 advances the state and returns its XSL-RR output.
func (p *pcg64) next64() uint64 {
	p.step()
	return bits.RotateLeft64(p.state.hi^p.state.lo, -int(p.state.hi>>58))
}

// next32 returns the low half of a fresh 64-bit draw and keeps the high
// half for the next call.
func (p *pcg64) next32() uint32 {
	if p.has32 {
		p.has32 = false
		return p.buf32
	}
	v := p.next64()
	p.has32, p.buf32 = true, uint32(v>>32)
	return uint32(v)
}

// nextDouble returns a float64 in [0, 1) from the top 53 bits of a 64-bit
// draw.
func (p *pcg64) nextDouble() float64 {
	return float64(p.next64()>>11) * (1.0 / 9007199254740992.0)
}
