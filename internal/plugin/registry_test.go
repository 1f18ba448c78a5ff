package plugin

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := New[func() int]("widget")
	if err := r.Register("b", func() int { return 2 }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("a", func() int { return 1 }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("a", func() int { return 3 }); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate Register error = %v; want 'registered twice'", err)
	}
	if err := r.Register("", func() int { return 0 }); err == nil {
		t.Error("empty name accepted")
	}
	f, err := r.Lookup("a")
	if err != nil {
		t.Fatalf("Lookup(a): %v", err)
	}
	if got := f(); got != 1 {
		t.Errorf("Lookup(a)() = %d; want 1", got)
	}
	if _, err := r.Lookup("zz"); err == nil || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("Lookup(zz) error = %v; want list of available names", err)
	}
	if got := strings.Join(r.Names(), ","); got != "a,b" {
		t.Errorf("Names() = %s; want a,b", got)
	}
	if !r.Has("b") || r.Has("c") {
		t.Error("Has is wrong")
	}
}
