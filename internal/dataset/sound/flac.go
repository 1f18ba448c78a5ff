package sound

import (
	"cmp"
	"errors"
	"fmt"
)

// maxFLACSamples bounds a decoded FLAC stream (about 35 minutes of 16 kHz
// mono), so a hostile header cannot ask for unbounded memory.
const maxFLACSamples = 1 << 25

// bitReader reads big-endian bit fields.
type bitReader struct {
	data []byte
	pos  int // bit position
}

var errShort = errors.New("flac: truncated stream")

func (r *bitReader) bits(n int) (uint64, error) {
	if r.pos+n > 8*len(r.data) {
		return 0, errShort
	}
	var v uint64
	for n > 0 {
		byteIdx, bitOff := r.pos>>3, r.pos&7
		take := min(8-bitOff, n)
		b := uint64(r.data[byteIdx]>>(8-bitOff-take)) & (1<<take - 1)
		v = v<<take | b
		n -= take
		r.pos += take
	}
	return v, nil
}

func (r *bitReader) signed(n int) (int64, error) {
	v, err := r.bits(n)
	if err != nil || n == 0 {
		return 0, err
	}
	if v&(1<<(n-1)) != 0 {
		return int64(v) - int64(1)<<n, nil
	}
	return int64(v), nil
}

func (r *bitReader) unary() (int, error) {
	n := 0
	for {
		b, err := r.bits(1)
		if err != nil {
			return 0, err
		}
		if b == 1 {
			return n, nil
		}
		n++
	}
}

func (r *bitReader) align() { r.pos = (r.pos + 7) &^ 7 }

// streamInfo is the FLAC STREAMINFO block.
type streamInfo struct {
	rate, channels, bps int
	total               uint64
}

// decodeFLAC decodes a native FLAC stream: metadata blocks, then frames of
// constant, verbatim, fixed and LPC subframes with Rice-coded residuals
// and stereo decorrelation. CRCs are not checked.
func decodeFLAC(data []byte) (*PCM, error) {
	r := &bitReader{data: data, pos: 32}
	var info streamInfo
	haveInfo := false
	for {
		last, err := r.bits(1)
		if err != nil {
			return nil, err
		}
		typ, _ := r.bits(7)
		n, err := r.bits(24)
		if err != nil {
			return nil, err
		}
		start := r.pos / 8
		if start+int(n) > len(data) {
			return nil, errShort
		}
		if typ == 0 {
			if n < 34 {
				return nil, errors.New("flac: short STREAMINFO")
			}
			sr := &bitReader{data: data[start : start+int(n)], pos: 80}
			rate, _ := sr.bits(20)
			ch, _ := sr.bits(3)
			bps, _ := sr.bits(5)
			total, _ := sr.bits(36)
			info = streamInfo{rate: int(rate), channels: int(ch) + 1, bps: int(bps) + 1, total: total}
			haveInfo = true
		}
		r.pos += int(n) * 8
		if last == 1 {
			break
		}
	}
	if !haveInfo {
		return nil, errors.New("flac: no STREAMINFO block")
	}
	if info.total > maxFLACSamples {
		return nil, fmt.Errorf("flac: %d samples is more than this decoder accepts", info.total)
	}
	p := &PCM{Rate: info.rate, Channels: info.channels}
	if info.total > 0 {
		// A constant subframe packs a whole block in a few bytes, so the
		// header's count is trusted only as far as the input's size.
		p.Samples = make([]float64, 0, min(int(info.total)*info.channels, 16*len(data)))
	}
	scale := 1 / float64(int64(1)<<(info.bps-1))
	for r.pos/8+2 <= len(data) {
		block, bps, err := decodeFrame(r, info)
		if err != nil {
			if errors.Is(err, errNoSync) && len(p.Samples) > 0 {
				break // trailing garbage (an ID3 tag, padding)
			}
			return nil, err
		}
		if len(p.Samples)+len(block[0])*len(block) > min(maxFLACSamples, 1024*len(data)+1<<19) {
			return nil, errors.New("flac: stream longer than this decoder accepts")
		}
		s := 1 / float64(int64(1)<<(bps-1))
		if bps == info.bps {
			s = scale
		}
		for i := range block[0] {
			for c := range block {
				p.Samples = append(p.Samples, float64(block[c][i])*s)
			}
		}
	}
	if len(p.Samples) == 0 && info.total > 0 {
		return nil, errors.New("flac: no audio frames")
	}
	return p, nil
}

var errNoSync = errors.New("flac: frame sync code not found")

func decodeFrame(r *bitReader, info streamInfo) ([][]int64, int, error) {
	h, err := readFrameHeader(r, info)
	if err != nil {
		return nil, 0, err
	}
	out := make([][]int64, h.channels)
	for c := range out {
		cbps := h.bps
		switch {
		case h.chCode == 8 && c == 1, h.chCode == 9 && c == 0, h.chCode == 10 && c == 1:
			cbps++ // the side channel carries one more bit
		}
		if out[c], err = decodeSubframe(r, h.size, cbps); err != nil {
			return nil, 0, err
		}
	}
	decorrelate(out, h.chCode)
	r.align()
	if _, err := r.bits(16); err != nil { // CRC-16
		return nil, 0, err
	}
	return out, h.bps, nil
}

// frameHeader is what a frame header says about the subframes after it.
type frameHeader struct {
	size, bps, channels int
	chCode              uint64
}

// readFrameHeader reads a frame header through its CRC-8, checking it
// against the stream's channel count.
func readFrameHeader(r *bitReader, info streamInfo) (frameHeader, error) {
	var h frameHeader
	sync, err := r.bits(14)
	if err != nil {
		return h, err
	}
	if sync != 0x3FFE {
		return h, errNoSync
	}
	r.bits(2) // reserved, blocking strategy
	bsCode, _ := r.bits(4)
	srCode, _ := r.bits(4)
	chCode, _ := r.bits(4)
	ssCode, _ := r.bits(3)
	if _, err := r.bits(1); err != nil {
		return h, err
	}
	if err := skipCodedNumber(r); err != nil {
		return h, err
	}
	if h.size, err = frameBlockSize(r, bsCode); err != nil {
		return h, err
	}
	switch srCode {
	case 12:
		r.bits(8)
	case 13, 14:
		r.bits(16)
	case 15:
		return h, errors.New("flac: invalid sample rate code")
	}
	if ssCode == 3 {
		return h, errors.New("flac: reserved sample size")
	}
	h.bps = cmp.Or(frameSampleSizes[ssCode], info.bps)
	if _, err := r.bits(8); err != nil { // CRC-8
		return h, err
	}
	h.chCode, h.channels = chCode, int(chCode)+1
	if chCode >= 8 {
		if chCode > 10 {
			return h, errors.New("flac: reserved channel assignment")
		}
		h.channels = 2
	}
	if h.channels != info.channels {
		return h, fmt.Errorf("flac: frame has %d channels, the stream %d", h.channels, info.channels)
	}
	return h, nil
}

// frameSampleSizes are the bits per sample of each sample size code; 0
// takes the stream's (code 0) and code 3 is reserved.
var frameSampleSizes = [8]int{1: 8, 2: 12, 4: 16, 5: 20, 6: 24, 7: 32}

// skipCodedNumber skips the UTF-8-like coded frame or sample number.
func skipCodedNumber(r *bitReader) error {
	first, err := r.bits(8)
	if err != nil {
		return err
	}
	for b := byte(first) << 1; b&0x80 != 0; b <<= 1 {
		if _, err := r.bits(8); err != nil {
			return err
		}
	}
	return nil
}

// frameBlockSize is the block size a block size code gives, reading the
// 8- or 16-bit size that codes 6 and 7 put at the end of the header.
func frameBlockSize(r *bitReader, bsCode uint64) (int, error) {
	switch {
	case bsCode == 1:
		return 192, nil
	case bsCode >= 2 && bsCode <= 5:
		return 576 << (bsCode - 2), nil
	case bsCode == 6, bsCode == 7:
		v, err := r.bits(8 << (bsCode - 6))
		if err != nil {
			return 0, err
		}
		return int(v) + 1, nil
	case bsCode >= 8:
		return 256 << (bsCode - 8), nil
	}
	return 0, errors.New("flac: reserved block size")
}

// decorrelate restores left and right from the stereo decorrelation of
// channel assignments 8 to 10.
func decorrelate(out [][]int64, chCode uint64) {
	switch chCode {
	case 8: // left/side
		for i := range out[0] {
			out[1][i] = out[0][i] - out[1][i]
		}
	case 9: // side/right
		for i := range out[0] {
			out[0][i] += out[1][i]
		}
	case 10: // mid/side
		for i := range out[0] {
			mid, side := out[0][i]<<1|(out[1][i]&1), out[1][i]
			out[0][i], out[1][i] = (mid+side)>>1, (mid-side)>>1
		}
	}
}

func decodeSubframe(r *bitReader, size, bps int) ([]int64, error) {
	if pad, err := r.bits(1); err != nil || pad != 0 {
		if err == nil {
			err = errors.New("flac: bad subframe padding")
		}
		return nil, err
	}
	typ, _ := r.bits(6)
	wasted := 0
	if w, err := r.bits(1); err != nil {
		return nil, err
	} else if w == 1 {
		k, err := r.unary()
		if err != nil {
			return nil, err
		}
		wasted = k + 1
		bps -= wasted
	}
	if bps < 1 || bps > 33 {
		return nil, fmt.Errorf("flac: %d bits per sample", bps)
	}
	out := make([]int64, size)
	var err error
	switch {
	case typ == 0:
		v, e := r.signed(bps)
		for i := range out {
			out[i] = v
		}
		err = e
	case typ == 1:
		for i := range out {
			if out[i], err = r.signed(bps); err != nil {
				break
			}
		}
	case typ >= 8 && typ <= 12:
		err = decodeFixed(r, out, int(typ&7), bps)
	case typ >= 32:
		err = decodeLPC(r, out, int(typ&31)+1, bps)
	default:
		err = fmt.Errorf("flac: reserved subframe type %d", typ)
	}
	if err != nil {
		return nil, err
	}
	if wasted > 0 {
		for i := range out {
			out[i] <<= wasted
		}
	}
	return out, nil
}

// readWarmup reads a predicted subframe's first order samples, which are
// stored verbatim at bps bits each.
func readWarmup(r *bitReader, out []int64, order, bps int) error {
	if order > len(out) {
		return errors.New("flac: predictor order exceeds the block")
	}
	for i := range order {
		v, err := r.signed(bps)
		if err != nil {
			return err
		}
		out[i] = v
	}
	return nil
}

func decodeFixed(r *bitReader, out []int64, order, bps int) error {
	if err := readWarmup(r, out, order, bps); err != nil {
		return err
	}
	if err := decodeResidual(r, out, order); err != nil {
		return err
	}
	for i := order; i < len(out); i++ {
		switch order {
		case 1:
			out[i] += out[i-1]
		case 2:
			out[i] += 2*out[i-1] - out[i-2]
		case 3:
			out[i] += 3*out[i-1] - 3*out[i-2] + out[i-3]
		case 4:
			out[i] += 4*out[i-1] - 6*out[i-2] + 4*out[i-3] - out[i-4]
		}
	}
	return nil
}

func decodeLPC(r *bitReader, out []int64, order, bps int) error {
	if err := readWarmup(r, out, order, bps); err != nil {
		return err
	}
	prec, err := r.bits(4)
	if err != nil {
		return err
	}
	if prec == 15 {
		return errors.New("flac: invalid LPC precision")
	}
	shift, err := r.signed(5)
	if err != nil {
		return err
	}
	if shift < 0 {
		return errors.New("flac: negative LPC shift")
	}
	coefs := make([]int64, order)
	for i := range coefs {
		if coefs[i], err = r.signed(int(prec) + 1); err != nil {
			return err
		}
	}
	if err := decodeResidual(r, out, order); err != nil {
		return err
	}
	for i := order; i < len(out); i++ {
		var sum int64
		for j, c := range coefs {
			sum += c * out[i-1-j]
		}
		out[i] += sum >> shift
	}
	return nil
}

// decodeResidual reads the partitioned Rice-coded residual into
// out[order:].
func decodeResidual(r *bitReader, out []int64, order int) error {
	method, err := r.bits(2)
	if err != nil {
		return err
	}
	if method > 1 {
		return errors.New("flac: reserved residual coding method")
	}
	paramBits, escape := 4, uint64(15)
	if method == 1 {
		paramBits, escape = 5, 31
	}
	porder, err := r.bits(4)
	if err != nil {
		return err
	}
	parts := 1 << porder
	if len(out)%parts != 0 || len(out)/parts < order {
		return errors.New("flac: bad residual partition order")
	}
	i := order
	for p := range parts {
		n := len(out) / parts
		if p == 0 {
			n -= order
		}
		k, err := r.bits(paramBits)
		if err != nil {
			return err
		}
		if k == escape {
			raw, err := r.bits(5)
			if err != nil {
				return err
			}
			for range n {
				if out[i], err = r.signed(int(raw)); err != nil {
					return err
				}
				i++
			}
			continue
		}
		for range n {
			q, err := r.unary()
			if err != nil {
				return err
			}
			low, err := r.bits(int(k))
			if err != nil {
				return err
			}
			u := uint64(q)<<k | low
			out[i] = int64(u>>1) ^ -int64(u&1)
			i++
		}
	}
	return nil
}
