// Package sound decodes the audio files speech datasets ship (FLAC and
// WAV) and re-encodes them as 16-bit PCM WAV, the way AIPerf's ASR loaders
// do with soundfile (libsndfile): every sample is read as a fraction of
// full scale and written as floor(x * 32768), clipped to the 16-bit range.
//
// It uses only the standard library.
package sound

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// PCM is decoded audio: interleaved samples as fractions of full scale in
// [-1, 1).
type PCM struct {
	Rate     int
	Channels int
	// Samples are interleaved (frame 0 channel 0, frame 0 channel 1, ...).
	Samples []float64
}

// Frames is the number of sample frames (samples per channel).
func (p *PCM) Frames() int {
	if p.Channels == 0 {
		return 0
	}
	return len(p.Samples) / p.Channels
}

// Duration is the clip length in seconds.
func (p *PCM) Duration() float64 {
	if p.Rate == 0 {
		return 0
	}
	return float64(p.Frames()) / float64(p.Rate)
}

// ErrUnsupported is wrapped by Decode for formats it does not read.
var ErrUnsupported = errors.New("unsupported audio format")

// Decode reads a FLAC or WAV file.
func Decode(data []byte) (*PCM, error) {
	switch {
	case bytes.HasPrefix(data, []byte("fLaC")):
		return decodeFLAC(data)
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return decodeWAV(data)
	}
	return nil, fmt.Errorf("%w (not FLAC or WAV)", ErrUnsupported)
}

// WAV16 encodes p as a canonical 16-bit PCM WAV file (44-byte header).
func WAV16(p *PCM) []byte {
	n := len(p.Samples)
	out := make([]byte, 44+2*n)
	copy(out, "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(36+2*n))
	copy(out[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:], 16)
	binary.LittleEndian.PutUint16(out[20:], 1) // PCM
	binary.LittleEndian.PutUint16(out[22:], uint16(p.Channels))
	binary.LittleEndian.PutUint32(out[24:], uint32(p.Rate))
	binary.LittleEndian.PutUint32(out[28:], uint32(p.Rate*p.Channels*2))
	binary.LittleEndian.PutUint16(out[32:], uint16(p.Channels*2))
	binary.LittleEndian.PutUint16(out[34:], 16)
	copy(out[36:], "data")
	binary.LittleEndian.PutUint32(out[40:], uint32(2*n))
	for i, x := range p.Samples {
		v := math.Floor(x * 32768)
		v = max(-32768, min(32767, v))
		binary.LittleEndian.PutUint16(out[44+2*i:], uint16(int16(v)))
	}
	return out
}

// decodeWAV reads RIFF WAVE PCM (8, 16, 24 or 32 bits) and IEEE float (32
// or 64 bits), WAVE_FORMAT_EXTENSIBLE included.
func decodeWAV(data []byte) (*PCM, error) {
	var (
		format, channels, bits uint16
		rate                   uint32
		haveFmt                bool
	)
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4:]))
		body := data[off+8:]
		if size > len(body) {
			size = len(body) // a truncated last chunk
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, errors.New("wav: short fmt chunk")
			}
			format = binary.LittleEndian.Uint16(body)
			channels = binary.LittleEndian.Uint16(body[2:])
			rate = binary.LittleEndian.Uint32(body[4:])
			bits = binary.LittleEndian.Uint16(body[14:])
			if format == 0xFFFE && size >= 26 {
				format = binary.LittleEndian.Uint16(body[24:])
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, errors.New("wav: data before fmt")
			}
			return wavSamples(body, format, int(channels), int(rate), int(bits))
		}
		off += 8 + size + size%2
	}
	return nil, errors.New("wav: no data chunk")
}

func wavSamples(body []byte, format uint16, channels, rate, bits int) (*PCM, error) {
	if channels < 1 || rate < 1 {
		return nil, fmt.Errorf("wav: %d channels at %d Hz", channels, rate)
	}
	width := bits / 8
	if width == 0 || bits%8 != 0 {
		return nil, fmt.Errorf("%w: wav with %d-bit samples", ErrUnsupported, bits)
	}
	n := len(body) / width
	n -= n % channels
	p := &PCM{Rate: rate, Channels: channels, Samples: make([]float64, n)}
	for i := range n {
		b := body[i*width:]
		switch {
		case format == 1 && bits == 8:
			p.Samples[i] = float64(int(b[0])-128) / 128
		case format == 1 && bits == 16:
			p.Samples[i] = float64(int16(binary.LittleEndian.Uint16(b))) / (1 << 15)
		case format == 1 && bits == 24:
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			p.Samples[i] = float64(v) / (1 << 23)
		case format == 1 && bits == 32:
			p.Samples[i] = float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31)
		case format == 3 && bits == 32:
			p.Samples[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case format == 3 && bits == 64:
			p.Samples[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		default:
			return nil, fmt.Errorf("%w: wav format %d with %d-bit samples", ErrUnsupported, format, bits)
		}
	}
	return p, nil
}
