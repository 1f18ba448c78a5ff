package media

import (
	"bytes"
	"image/color"
	"math"
)

// A baseline JPEG encoder without chroma subsampling (4:4:4).
//
// AIPerf saves its synthetic JPEGs with PIL at quality 85 and
// subsampling=0, i.e. full-resolution chroma. The standard library encoder
// always subsamples chroma 4:2:0, which halves the size of a noise image
// and so the bytes a benchmark puts on the wire. This encoder writes what
// libjpeg writes for those settings: a JFIF APP0 header, the Annex K
// quantization tables scaled by the IJG quality formula, the Annex K
// Huffman tables, one interleaved scan of 8x8 blocks (Y, Cb, Cr per MCU).
// Only the DCT rounding differs (floating point here, libjpeg's integer
// ISLOW there), which moves a few coefficients by one.

// jpegLumaQuant and jpegChromaQuant are the quantization tables of JPEG
// Annex K.1, in natural (row-major) order.
var jpegLumaQuant = [64]int{
	16, 11, 10, 16, 24, 40, 51, 61,
	12, 12, 14, 19, 26, 58, 60, 55,
	14, 13, 16, 24, 40, 57, 69, 56,
	14, 17, 22, 29, 51, 87, 80, 62,
	18, 22, 37, 56, 68, 109, 103, 77,
	24, 35, 55, 64, 81, 104, 113, 92,
	49, 64, 78, 87, 103, 121, 120, 101,
	72, 92, 95, 98, 112, 100, 103, 99,
}

var jpegChromaQuant = [64]int{
	17, 18, 24, 47, 99, 99, 99, 99,
	18, 21, 26, 66, 99, 99, 99, 99,
	24, 26, 56, 99, 99, 99, 99, 99,
	47, 66, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
}

// huffSpec is a Huffman table as JPEG's DHT segment carries it: the number
// of codes of each length 1..16, then the symbols in code order.
type huffSpec struct {
	counts  [16]byte
	symbols []byte
}

// The Huffman tables of JPEG Annex K.3 (DC and AC, luminance and
// chrominance), which libjpeg uses unless asked to optimize.
var (
	jpegDCLuma = huffSpec{
		[16]byte{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
		[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
	}
	jpegDCChroma = huffSpec{
		[16]byte{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
		[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
	}
	jpegACLuma = huffSpec{
		[16]byte{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d},
		[]byte{
			0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
			0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
			0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
			0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
			0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
			0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
			0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
			0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
			0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
			0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		},
	}
	jpegACChroma = huffSpec{
		[16]byte{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77},
		[]byte{
			0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
			0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
			0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
			0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
			0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
			0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
			0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
			0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
			0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
			0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		},
	}
)

// huffCode is one symbol's code: its bits, right-aligned, and their count.
type huffCode struct {
	bits uint32
	n    uint8
}

// codes assigns the canonical codes of JPEG Annex C: by increasing
// length, consecutive values, doubling between lengths.
func (s *huffSpec) codes() [256]huffCode {
	var out [256]huffCode
	code, k := uint32(0), 0
	for l := range 16 {
		for range s.counts[l] {
			out[s.symbols[k]] = huffCode{bits: code, n: uint8(l + 1)}
			code++
			k++
		}
		code <<= 1
	}
	return out
}

// zigzag maps a zig-zag position to its natural (row-major) index.
var zigzag = func() [64]int {
	var z [64]int
	i := 0
	for s := range 15 { // anti-diagonals r+c = s
		for k := range s + 1 {
			r, c := k, s-k // odd diagonals run down-left
			if s%2 == 0 {
				r, c = s-k, k // even diagonals run up-right
			}
			if r < 8 && c < 8 {
				z[i] = r*8 + c
				i++
			}
		}
	}
	return z
}()

// dctCos[u][x] is C(u)/2 * cos((2x+1)uπ/16), the separable DCT-II basis.
var dctCos = func() [8][8]float64 {
	var t [8][8]float64
	for u := range 8 {
		cu := 1.0
		if u == 0 {
			cu = math.Sqrt2 / 2
		}
		for x := range 8 {
			t[u][x] = cu / 2 * math.Cos(float64(2*x+1)*float64(u)*math.Pi/16)
		}
	}
	return t
}()

// scaledQuant scales an Annex K table by the IJG quality formula, clamped
// to [1, 255] (baseline), and returns it in natural order.
func scaledQuant(base *[64]int, quality int) [64]int {
	scale := 200 - 2*quality
	if quality < 50 {
		scale = 5000 / quality
	}
	var q [64]int
	for i, b := range base {
		q[i] = min(255, max(1, (b*scale+50)/100))
	}
	return q
}

// jpegWriter accumulates entropy-coded bits with JPEG byte stuffing.
type jpegWriter struct {
	buf   *bytes.Buffer
	acc   uint32
	nbits uint
}

func (w *jpegWriter) emit(bits uint32, n uint8) {
	w.acc = w.acc<<n | bits&(1<<n-1)
	w.nbits += uint(n)
	for w.nbits >= 8 {
		b := byte(w.acc >> (w.nbits - 8))
		w.buf.WriteByte(b)
		if b == 0xff {
			w.buf.WriteByte(0)
		}
		w.nbits -= 8
	}
}

// flush pads the last byte with 1 bits.
func (w *jpegWriter) flush() {
	if w.nbits > 0 {
		w.emit(1<<(8-w.nbits)-1, uint8(8-w.nbits))
	}
}

// magnitude returns JPEG's size category of v and its coded bits.
func magnitude(v int) (uint32, uint8) {
	a := v
	if a < 0 {
		a = -a
		v-- // one's complement of |v| for negative values
	}
	var n uint8
	for a > 0 {
		n++
		a >>= 1
	}
	return uint32(v), n
}

// encodeJPEG444 writes an 8-bit RGB image (pix holds w*h RGB triples,
// row-major) as a baseline JFIF JPEG without chroma subsampling.
func encodeJPEG444(buf *bytes.Buffer, pix []byte, w, h, quality int) {
	qY, qC := scaledQuant(&jpegLumaQuant, quality), scaledQuant(&jpegChromaQuant, quality)

	buf.Write([]byte{0xff, 0xd8}) // SOI
	buf.Write([]byte{0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0})
	for id, q := range []*[64]int{&qY, &qC} {
		buf.Write([]byte{0xff, 0xdb, 0, 67, byte(id)})
		for _, n := range zigzag {
			buf.WriteByte(byte(q[n]))
		}
	}
	buf.Write([]byte{0xff, 0xc0, 0, 17, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1})
	for _, t := range []struct {
		class byte
		spec  *huffSpec
	}{{0x00, &jpegDCLuma}, {0x10, &jpegACLuma}, {0x01, &jpegDCChroma}, {0x11, &jpegACChroma}} {
		n := 19 + len(t.spec.symbols)
		buf.Write([]byte{0xff, 0xc4, byte(n >> 8), byte(n), t.class})
		buf.Write(t.spec.counts[:])
		buf.Write(t.spec.symbols)
	}
	buf.Write([]byte{0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0})

	dc := [2][256]huffCode{jpegDCLuma.codes(), jpegDCChroma.codes()}
	ac := [2][256]huffCode{jpegACLuma.codes(), jpegACChroma.codes()}
	quant := [3]*[64]int{&qY, &qC, &qC}
	bw := &jpegWriter{buf: buf}
	var prevDC [3]int
	var block [3][64]float64
	for by := 0; by < h; by += 8 {
		for bx := 0; bx < w; bx += 8 {
			for y := range 8 {
				row := min(by+y, h-1) // edge rows and columns are repeated
				for x := range 8 {
					p := pix[3*(row*w+min(bx+x, w-1)):]
					yy, cb, cr := color.RGBToYCbCr(p[0], p[1], p[2])
					block[0][y*8+x] = float64(yy) - 128
					block[1][y*8+x] = float64(cb) - 128
					block[2][y*8+x] = float64(cr) - 128
				}
			}
			for c := range 3 {
				t := min(c, 1)
				coef := fdct(&block[c], quant[c])
				d := coef[0] - prevDC[c]
				prevDC[c] = coef[0]
				bits, n := magnitude(d)
				bw.emit(dc[t][n].bits, dc[t][n].n)
				bw.emit(bits, n)
				run := 0
				for k := 1; k < 64; k++ {
					v := coef[zigzag[k]]
					if v == 0 {
						run++
						continue
					}
					for run > 15 {
						bw.emit(ac[t][0xf0].bits, ac[t][0xf0].n) // ZRL
						run -= 16
					}
					bits, n := magnitude(v)
					sym := byte(run<<4) | n
					bw.emit(ac[t][sym].bits, ac[t][sym].n)
					bw.emit(bits, n)
					run = 0
				}
				if run > 0 {
					bw.emit(ac[t][0].bits, ac[t][0].n) // EOB
				}
			}
		}
	}
	bw.flush()
	buf.Write([]byte{0xff, 0xd9}) // EOI
}

// fdct returns the quantized 2-D DCT of a level-shifted block, natural
// order. Coefficients are clamped to the baseline range.
func fdct(b *[64]float64, q *[64]int) [64]int {
	var tmp [64]float64
	for y := range 8 {
		for u := range 8 {
			s := 0.0
			for x := range 8 {
				s += dctCos[u][x] * b[y*8+x]
			}
			tmp[y*8+u] = s
		}
	}
	var out [64]int
	for u := range 8 {
		for v := range 8 {
			s := 0.0
			for y := range 8 {
				s += dctCos[v][y] * tmp[y*8+u]
			}
			c := int(math.Round(s / float64(q[v*8+u])))
			out[v*8+u] = max(-1023, min(1023, c))
		}
	}
	return out
}
