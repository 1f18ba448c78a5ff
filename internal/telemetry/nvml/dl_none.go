//go:build !(nvml && linux)

package nvml

// Supported reports whether this build can read NVML.
const Supported = false

// A static binary has no dynamic loader: nothing can be loaded.
func dlopen(string) (uintptr, error)         { return 0, ErrUnavailable }
func dlsym(uintptr, string) (uintptr, error) { return 0, ErrUnavailable }
func bind(any, uintptr)                      {}
