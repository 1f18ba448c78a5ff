//go:build nvml && linux

package nvml

import "github.com/ebitengine/purego"

// Supported reports whether this build can read NVML.
const Supported = true

// dlopen, dlsym and bind load the library with purego: no cgo, but the
// binary is dynamically linked (dlopen is libc's).
func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

func bind(fn any, addr uintptr) { purego.RegisterFunc(fn, addr) }
