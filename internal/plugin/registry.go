// Package plugin provides the generic registry behind every pluggable
// concept (endpoint types today; dataset loaders, exporters and arrival
// patterns later). Registries are values built explicitly by
// internal/builtin: there is no global registry and no init() registration,
// so tests build their own and `aiperf plugins` can list exactly what is
// compiled in.
package plugin

import (
	"fmt"
	"sort"
	"strings"
)

// Registry maps names to factories of type F. It is not safe for concurrent
// mutation; build it once at start-up, then only read it.
type Registry[F any] struct {
	kind    string
	entries map[string]F
}

// New returns an empty registry for a kind of plugin ("endpoint", ...); the
// kind appears in error messages.
func New[F any](kind string) *Registry[F] {
	return &Registry[F]{kind: kind, entries: map[string]F{}}
}

// Register adds f under name. Registering a name twice is an error.
func (r *Registry[F]) Register(name string, f F) error {
	if name == "" {
		return fmt.Errorf("%s plugin: empty name", r.kind)
	}
	if _, dup := r.entries[name]; dup {
		return fmt.Errorf("%s plugin %q registered twice", r.kind, name)
	}
	r.entries[name] = f
	return nil
}

// Lookup returns the factory registered under name. The error lists the
// names that are available.
func (r *Registry[F]) Lookup(name string) (F, error) {
	f, ok := r.entries[name]
	if !ok {
		var zero F
		return zero, fmt.Errorf("unknown %s %q (available: %s)", r.kind, name, strings.Join(r.Names(), ", "))
	}
	return f, nil
}

// Names returns the registered names, sorted.
func (r *Registry[F]) Names() []string {
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether name is registered.
func (r *Registry[F]) Has(name string) bool {
	_, ok := r.entries[name]
	return ok
}
