package environ

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVarsDeclared: every entry has a name, a meaning and its readers, and
// no name is declared twice.
func TestVarsDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range Vars {
		if v.Name == "" || v.Meaning == "" || v.Users == "" {
			t.Errorf("%+v: want a name, a meaning and its users", v)
		}
		if seen[v.Name] {
			t.Errorf("%s is declared twice", v.Name)
		}
		seen[v.Name] = true
		if strings.TrimSpace(v.Name) != v.Name || strings.ContainsAny(v.Name, "= ") {
			t.Errorf("%q: not a variable name", v.Name)
		}
	}
}

// productFiles calls f with every Go file of the product (internal/ and
// cmd/, without _test.go files) and its contents.
func productFiles(t *testing.T, f func(path, src string)) {
	t.Helper()
	root := filepath.Join("..", "..")
	n := 0
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			f(filepath.ToSlash(path), string(src))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 100 {
		t.Fatalf("read %d product files; is the tree there?", n)
	}
}

// TestOnlyEnvironReadsTheEnvironment is the property `grep -rn
// 'os.Getenv\|os.LookupEnv' internal/ cmd/ | grep -v _test` states: no
// product file outside this package reads the process environment itself.
func TestOnlyEnvironReadsTheEnvironment(t *testing.T) {
	reads := regexp.MustCompile(`\bos\.(Getenv|LookupEnv|Environ)\b`)
	productFiles(t, func(path, src string) {
		if strings.Contains(path, "internal/environ/") {
			return
		}
		for i, line := range strings.Split(src, "\n") {
			if reads.MatchString(line) {
				t.Errorf("%s:%d reads the environment itself (use internal/environ): %s", path, i+1, strings.TrimSpace(line))
			}
		}
	})
}

// TestEveryReadVariableIsDeclared: each variable name written in product
// code (an AIPERF_ name, or one of the other families aiperf reads) is in
// Vars.
func TestEveryReadVariableIsDeclared(t *testing.T) {
	names := regexp.MustCompile(`"((?:AIPERF|HF|HUGGING_FACE|HUGGINGFACE|AWS|MLFLOW|WANDB|OPENAI|XDG|TRANSFORMERS|KUBEBUILDER)_[A-Z0-9_]*)"`)
	productFiles(t, func(path, src string) {
		for _, m := range names.FindAllStringSubmatch(src, -1) {
			if _, ok := Declared(m[1]); !ok {
				t.Errorf("%s reads %s, which internal/environ does not declare", path, m[1])
			}
		}
	})
}

// TestDeclared covers prefix entries, and Redact hides set secrets only.
func TestDeclared(t *testing.T) {
	if v, ok := Declared("AIPERF_HEADER_0"); !ok || !v.Prefix {
		t.Errorf("AIPERF_HEADER_0: %+v %v; want the prefix entry", v, ok)
	}
	if _, ok := Declared("AIPERF_NO_SUCH_THING"); ok {
		t.Error("an undeclared name is declared")
	}
	tok, _ := Declared("HF_TOKEN")
	if got := tok.Redact("hf_secret"); got == "hf_secret" {
		t.Errorf("HF_TOKEN printed as %q", got)
	}
	if got := tok.Redact(""); got != "" {
		t.Errorf("unset HF_TOKEN printed as %q", got)
	}
	lim, _ := Declared("AIPERF_HTTP_CONNECTION_LIMIT")
	if got := lim.Redact("4"); got != "4" {
		t.Errorf("AIPERF_HTTP_CONNECTION_LIMIT printed as %q", got)
	}
}

// TestSnapshot reads the environment once: a later change is not seen.
func TestSnapshot(t *testing.T) {
	t.Setenv("AIPERF_ENVIRON_TEST", "before")
	s := Read()
	t.Setenv("AIPERF_ENVIRON_TEST", "after")
	if v, ok := s.LookupEnv("AIPERF_ENVIRON_TEST"); !ok || v != "before" {
		t.Errorf("snapshot: %q %v; want before", v, ok)
	}
	if Getenv("AIPERF_ENVIRON_TEST") != "after" {
		t.Error("Getenv does not read the process environment now")
	}
}
