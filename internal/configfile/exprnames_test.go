package configfile

import (
	"slices"
	"testing"
)

// TestExprNames pins the names exprNames reports as candidates for
// definition: not attributes, filter names, the word after "is" or "for",
// keyword arguments, defaulted names, number suffixes or anything inside
// string literals (keywords are left to its caller).
func TestExprNames(t *testing.T) {
	cases := []struct {
		expr string
		want []string
	}{
		{"a", []string{"a"}},
		{"a + b_2 * 3", []string{"a", "b_2"}},
		{"x.y.z", []string{"x"}},
		{"x | upper | default('n')", []string{"x"}},
		{"n | default(3)", nil},
		{"n |d(3)", nil},
		{"f(key=1, other == v)", []string{"f", "other", "v"}},
		{"'a b' ~ \"c\\\"d\" ~ e", []string{"e"}},
		{"x is defined", []string{"x", "is"}},
		{"i for i in items", []string{"i", "for", "in", "items"}},
		{"1.5e3 + 2x + y", []string{"y"}},
		{"10.real", nil},
		{"'unterminated", nil},
		{"a\tb\nc", []string{"a", "b", "c"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := exprNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("exprNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}
