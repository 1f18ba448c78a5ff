package nvml

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// libraryName is the driver's NVML, found by the dynamic loader's search
// (ld.so.cache, LD_LIBRARY_PATH), as the driver's own tools find it.
const libraryName = "libnvidia-ml.so.1"

// defaultLibrary loads libraryName once per process; later Opens reuse it
// (NVML counts nvmlInit calls, so each Source still inits and shuts down).
var defaultLibrary = sync.OnceValues(func() (*library, error) { return load(libraryName) })

// load opens the library at path and binds every function of symbols. A
// missing library is ErrNoDriver; one without a required function names
// them all.
func load(path string) (*library, error) {
	h, err := dlopen(path)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			return nil, err
		}
		return nil, fmt.Errorf("NVML: %w: %v", ErrNoDriver, err)
	}
	l := &library{}
	var missing []string
	for _, s := range l.symbols() {
		addr, err := dlsym(h, s.name)
		if err != nil || addr == 0 {
			if !s.optional {
				missing = append(missing, s.name)
			}
			continue
		}
		bind(s.fn, addr)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("NVML: %s lacks %s (not NVML, or an NVIDIA driver older than R450)", path, strings.Join(missing, ", "))
	}
	return l, nil
}

// err turns an NVML return code into an error with NVML's own text.
func (l *library) err(r ret) error { return fmt.Errorf("%s (NVML error %d)", l.errorString(r), r) }

// text reads a NUL-terminated string function into a buffer of size n.
func text(f func(handle, *byte, uint32) ret, h handle, n int) (string, ret) {
	b := make([]byte, n)
	r := f(h, &b[0], uint32(n))
	return cString(b), r
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// processUtilization returns the per-process samples newer than lastSeen:
// NVML first says how many there are (ERROR_INSUFFICIENT_SIZE), then fills
// them in.
func (l *library) processUtilization(h handle, lastSeen uint64) ([]processSample, ret) {
	var n uint32
	r := l.deviceGetProcessUtil(h, nil, &n, lastSeen)
	if r != retInsufficientSize {
		return nil, r
	}
	if n == 0 {
		return nil, r
	}
	ps := make([]processSample, n)
	r = l.deviceGetProcessUtil(h, &ps[0], &n, lastSeen)
	return ps[:min(int(n), len(ps))], r
}
