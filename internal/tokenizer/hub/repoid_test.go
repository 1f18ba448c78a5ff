package hub

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRepoID(t *testing.T) {
	tests := []struct {
		in     string
		want   RepoID
		folder string
		ok     bool
	}{
		{"Qwen/Qwen3-0.6B", RepoID{Namespace: "Qwen", Name: "Qwen3-0.6B"}, "models--Qwen--Qwen3-0.6B", true},
		{"gpt2", RepoID{Namespace: "", Name: "gpt2"}, "models--gpt2", true},
		{"meta-llama/Llama-3.1-8B-Instruct", RepoID{Namespace: "meta-llama", Name: "Llama-3.1-8B-Instruct"}, "models--meta-llama--Llama-3.1-8B-Instruct", true},
		{"a_b/c_d", RepoID{Namespace: "a_b", Name: "c_d"}, "models--a_b--c_d", true},
		{"", RepoID{}, "", false},
		{"/x", RepoID{}, "", false},
		{"x/", RepoID{}, "", false},
		{"a/b/c", RepoID{}, "", false},
		{"org/-name", RepoID{}, "", false},
		{"org/name.", RepoID{}, "", false},
		{"org/na--me", RepoID{}, "", false},
		{"org/na..me", RepoID{}, "", false},
		{"org/na me", RepoID{}, "", false},
		{"org/" + strings.Repeat("x", 97), RepoID{}, "", false},
		{"org/" + strings.Repeat("x", 96), RepoID{Namespace: "org", Name: strings.Repeat("x", 96)}, "models--org--" + strings.Repeat("x", 96), true},
		{`org\name`, RepoID{}, "", false},
		{"./local", RepoID{}, "", false},
	}
	for _, tt := range tests {
		got, err := ParseRepoID(tt.in)
		if tt.ok != (err == nil) {
			t.Errorf("ParseRepoID(%q) error = %v; want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if !tt.ok {
			if !errors.Is(err, ErrInvalidRepoID) {
				t.Errorf("ParseRepoID(%q) error %v does not wrap ErrInvalidRepoID", tt.in, err)
			}
			continue
		}
		if got != tt.want || got.String() != tt.in || got.folder() != tt.folder {
			t.Errorf("ParseRepoID(%q) = %+v (%q, %q); want %+v (%q)", tt.in, got, got.String(), got.folder(), tt.want, tt.folder)
		}
	}
}

// FuzzParseRepoID checks that an accepted id round-trips and maps to one
// cache folder name that cannot escape the cache or collide with another id.
func FuzzParseRepoID(f *testing.F) {
	for _, s := range []string{"Qwen/Qwen3-0.6B", "gpt2", "a/b/c", "org/na--me", "../x", "x/..", "a.b/c_d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseRepoID(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidRepoID) {
				t.Fatalf("ParseRepoID(%q) error %v does not wrap ErrInvalidRepoID", s, err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("ParseRepoID(%q).String() = %q", s, id.String())
		}
		folder := strings.TrimPrefix(id.folder(), "models--")
		if strings.ContainsAny(folder, `/\`) || folder == "." || folder == ".." {
			t.Fatalf("folder %q of %q is not one safe path element", id.folder(), s)
		}
		// The folder name decodes back to the id: "--" separates exactly
		// the namespace from the name.
		if back := strings.Replace(folder, "--", "/", 1); back != s || strings.Count(folder, "--") != strings.Count(s, "/") {
			t.Fatalf("folder %q of %q does not decode back", id.folder(), s)
		}
	})
}

func TestCheckRelPath(t *testing.T) {
	for _, p := range []string{"tokenizer.json", "a/b.json", "refs/pr/1"} {
		if err := checkRelPath("p", p); err != nil {
			t.Errorf("checkRelPath(%q) = %v; want nil", p, err)
		}
	}
	for _, p := range []string{"", "/abs", "a//b", "../x", "a/../b", "a/.", `a\b`, "a\x00b", "x/"} {
		if err := checkRelPath("p", p); err == nil {
			t.Errorf("checkRelPath(%q) = nil; want an error", p)
		}
	}
}
