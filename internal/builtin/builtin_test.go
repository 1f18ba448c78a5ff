package builtin

import (
	"slices"
	"testing"
)

func TestNewRegistersEndpoints(t *testing.T) {
	t.Parallel()
	r := New()
	if got, want := r.Endpoints.Names(), []string{"chat", "completions"}; !slices.Equal(got, want) {
		t.Fatalf("endpoint names = %v; want %v", got, want)
	}
	for _, name := range r.Endpoints.Names() {
		f, err := r.Endpoints.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := f().Metadata().Type; got != name {
			t.Errorf("endpoint %q reports type %q", name, got)
		}
	}
}
