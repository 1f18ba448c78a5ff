// Package environ declares every environment variable aiperf reads, in one
// table (Vars), and is the one package that reads the process environment:
// product code calls Getenv and LookupEnv here, or takes them as an
// injected func(string) string (the command line passes a Snapshot read
// once at start), and never os.Getenv itself. `aiperf env` prints the
// table with the values set.
//
// Invariant: a variable the product reads by name is declared in Vars
// (TestEveryReadVariableIsDeclared scans the source for AIPERF_ names and
// for the other names read). User-chosen names (${VAR} in a YAML config)
// are read through LookupEnv without being declared.
package environ

import (
	"os"
	"sort"
	"strings"
)

// Var is one environment variable the product reads.
type Var struct {
	// Name is the variable; with Prefix, every variable starting with it.
	Name string
	// Default is what applies when it is unset, in words or as the value;
	// "" when unset simply means off or none.
	Default string
	// Meaning says what it does.
	Meaning string
	// Users names the packages that read it.
	Users string
	// Secret values are never printed (credentials and tokens).
	Secret bool
	// Prefix makes Name a prefix (AIPERF_HEADER_<NAME>).
	Prefix bool
	// Test marks a variable only tests and their helper packages read.
	Test bool
}

// Getenv reads name from the process environment now ("" when unset).
// Packages that take an injected getenv default to it.
func Getenv(name string) string { return os.Getenv(name) }

// LookupEnv reads name from the process environment now, telling unset
// from set and empty.
func LookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

// Environ is the whole process environment as "NAME=value" lines, for a
// program started in this one's place.
func Environ() []string { return os.Environ() }

// Snapshot is the process environment read once.
type Snapshot map[string]string

// Read returns the process environment as it is now.
func Read() Snapshot {
	s := Snapshot{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s[k] = v
		}
	}
	return s
}

// Getenv is the snapshot's value of name, "" when unset.
func (s Snapshot) Getenv(name string) string { return s[name] }

// LookupEnv is the snapshot's value of name and whether it is set.
func (s Snapshot) LookupEnv(name string) (string, bool) {
	v, ok := s[name]
	return v, ok
}

// Declared returns the declaration of name (a Prefix entry covers every
// name it begins), and whether there is one.
func Declared(name string) (Var, bool) {
	for _, v := range Vars {
		if v.Name == name || v.Prefix && strings.HasPrefix(name, v.Name) {
			return v, true
		}
	}
	return Var{}, false
}

// Sorted returns Vars sorted by name.
func Sorted() []Var {
	out := append([]Var(nil), Vars...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Redact returns value as it may be printed: a Secret that is set shows as
// "(set, hidden)".
func (v Var) Redact(value string) string {
	if v.Secret && value != "" {
		return "(set, hidden)"
	}
	return value
}
