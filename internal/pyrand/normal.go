package pyrand

import (
	"encoding/binary"
	"math"
	"sort"
)

// numpy's Generator draws normals with a 256-layer ziggurat over 52-bit
// mantissas (Marsaglia and Tsang's method): a 64-bit draw gives the layer
// (8 bits), the sign (1 bit) and the abscissa (52 bits). The layers are
// those of the standard normal with tail start zigR and layer area zigV.
const (
	zigR = 3.6541528853610087963519472518
	// zigInvR is 1/zigR.
	zigInvR = 0.27366123732975827203338247596
	// zigV is the common area of the 256 layers (and of the base strip
	// with the tail), for this zigR.
	zigV = 4.928673233974655e-3
	// zigScale is 2^52, the abscissa's range.
	zigScale = 4503599627370496.0
)

// ziggurat holds the layer tables: k[i] is the 52-bit abscissa below
// which layer i's draw is inside the curve at once (k[i] = 2^52
// x[i-1]/x[i]), w[i] = x[i]/2^52 scales the abscissa, f[i] = pdf(x[i]).
type ziggurat struct {
	k [256]uint64
	w [256]float64
	f [256]float64
}

// zig is computed once, from zigR and zigV, by the recurrence
// x[i-1] = sqrt(-2 ln(v/x[i] + pdf(x[i]))) down from x[255] = zigR.
// numpy's own tables come from the same construction; the entries may
// differ from them in the last bits, which moves a draw by an ulp or two
// at most and changes the accept decision with probability ~1e-14.
var zig = func() *ziggurat {
	z := &ziggurat{}
	pdf := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	x := zigR
	q := zigV / pdf(x)
	z.k[0] = uint64(x / q * zigScale)
	z.w[0], z.w[255] = q/zigScale, x/zigScale
	z.f[0], z.f[255] = 1, pdf(x)
	for i := 254; i >= 1; i-- {
		prev := x
		x = math.Sqrt(-2 * math.Log(zigV/x+pdf(x)))
		z.k[i+1] = uint64(x / prev * zigScale)
		z.f[i] = pdf(x)
		z.w[i] = x / zigScale
	}
	return z
}()

// StandardNormal returns Generator.standard_normal(): a draw of N(0, 1)
// by numpy's ziggurat (one 64-bit draw almost always; the wedges and the
// tail take doubles from the same stream).
func (g *Numpy) StandardNormal() float64 {
	for {
		r := g.bg.next64()
		layer := r & 0xff
		r >>= 8
		negative := r&1 == 1
		abs := (r >> 1) & (1<<52 - 1)
		x := float64(abs) * zig.w[layer]
		if negative {
			x = -x
		}
		if abs < zig.k[layer] {
			return x
		}
		if layer == 0 {
			// The tail beyond zigR, by Marsaglia's exponential method.
			for {
				xx := -zigInvR * math.Log1p(-g.bg.nextDouble())
				yy := -math.Log1p(-g.bg.nextDouble())
				if yy+yy > xx*xx {
					if (abs>>8)&1 == 1 {
						return -(zigR + xx)
					}
					return zigR + xx
				}
			}
		}
		if (zig.f[layer-1]-zig.f[layer])*g.bg.nextDouble()+zig.f[layer] < math.Exp(-0.5*x*x) {
			return x
		}
	}
}

// Normal returns Generator.normal(loc, scale): loc + scale*z.
func (g *Numpy) Normal(loc, scale float64) float64 { return loc + scale*g.StandardNormal() }

// Lognormal returns Generator.lognormal(mean, sigma): exp of a
// normal(mean, sigma) draw.
func (g *Numpy) Lognormal(mean, sigma float64) float64 { return math.Exp(g.Normal(mean, sigma)) }

// Bytes returns Generator.bytes(n): ceil(n/4) 32-bit draws (the
// half-word buffer included), little-endian, cut to n bytes.
func (g *Numpy) Bytes(n int) []byte {
	out := make([]byte, 0, (n+3)/4*4)
	for len(out) < n {
		out = binary.LittleEndian.AppendUint32(out, g.bg.next32())
	}
	return out[:n]
}

// Choice is Generator.choice(len(cdf), p=...) with replacement, given
// the cumulative distribution from ChoiceCDF: one uniform draw, and the
// first index whose cumulative probability exceeds it.
func (g *Numpy) Choice(cdf []float64) int {
	u := g.Random()
	return sort.Search(len(cdf), func(i int) bool { return cdf[i] > u })
}

// ChoiceCDF is what Generator.choice builds from p: its running sum
// divided by its last entry.
func ChoiceCDF(p []float64) []float64 {
	cdf := make([]float64, len(p))
	s := 0.0
	for i, v := range p {
		s += v
		cdf[i] = s
	}
	last := cdf[len(cdf)-1]
	for i := range cdf {
		cdf[i] /= last
	}
	return cdf
}
