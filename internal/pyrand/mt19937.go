package pyrand

// MT19937 parameters (Matsumoto and Nishimura, 1998), as in CPython's
// _randommodule.c and numpy's mt19937.c.
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// mt19937 is the Mersenne Twister state shared by Python's random.Random
// and numpy's RandomState.
type mt19937 struct {
	mt    [mtN]uint32
	index int
}

// initGenrand seeds the state from one 32-bit word (numpy's mt19937_seed,
// CPython's init_genrand).
func (m *mt19937) initGenrand(s uint32) {
	m.mt[0] = s
	for i := 1; i < mtN; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	m.index = mtN
}

// initByArray seeds the state from a key of 32-bit words (CPython's
// init_by_array, which random.seed(int) uses with the integer's words,
// least significant first).
func (m *mt19937) initByArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
	}
	m.mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
}

// next returns the next tempered 32-bit output.
func (m *mt19937) next() uint32 {
	if m.index >= mtN {
		m.twist()
	}
	y := m.mt[m.index]
	m.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// twist generates the next mtN words.
func (m *mt19937) twist() {
	mag := func(y uint32) uint32 { return (y & 1) * mtMatrixA }
	k := 0
	for ; k < mtN-mtM; k++ {
		y := (m.mt[k] & mtUpperMask) | (m.mt[k+1] & mtLowerMask)
		m.mt[k] = m.mt[k+mtM] ^ (y >> 1) ^ mag(y)
	}
	for ; k < mtN-1; k++ {
		y := (m.mt[k] & mtUpperMask) | (m.mt[k+1] & mtLowerMask)
		m.mt[k] = m.mt[k+mtM-mtN] ^ (y >> 1) ^ mag(y)
	}
	y := (m.mt[mtN-1] & mtUpperMask) | (m.mt[0] & mtLowerMask)
	m.mt[mtN-1] = m.mt[mtM-1] ^ (y >> 1) ^ mag(y)
	m.index = 0
}

// double returns a float64 in [0, 1) from two outputs with 53 random bits,
// the formula CPython's random() and numpy's legacy random_sample share.
func (m *mt19937) double() float64 {
	a, b := m.next()>>5, m.next()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}
