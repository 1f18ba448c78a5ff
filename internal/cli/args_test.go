package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// profileFlags returns a profile flag set bound to a throwaway config.
func profileFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	cfg := config.Defaults()
	registerProfileFlags(fs, &cfg, &problemList{})
	fs.BoolP("help", "h", false, "help")
	return fs
}

func TestPrepareProfileArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, problems string
	}{
		{"-m x", "--model-names=x", ""},
		{"-mx -v", "--model-names=x --verbose", ""},
		{"-vv", "--extra-verbose", ""},
		{"-v -vv", "--verbose --extra-verbose", ""},
		{"--isl 5 --osl=6", "--prompt-input-tokens-mean=5 --prompt-output-tokens-mean=6", ""},
		{"--request_count 3", "--request-count=3", ""},
		{"--streaming --ui none", "--streaming --ui-type=none", ""},
		{"--streaming=false", "--streaming=false", ""},
		{"-u a b -m x", "--url=a --url=b --model-names=x", ""},
		{"--extra-inputs a:1 b:2 c:3", "--extra-inputs=a:1 --extra-inputs=b:2 --extra-inputs=c:3", ""},
		{"-H A:1 B:2", "--header=A:1 --header=B:2", ""},
		{"--concurrency 2 x", "--concurrency=2 x", ""},
		{"--random-seed -1", "--random-seed=-1", ""},
		{"--nope 3 --isl 4", "--prompt-input-tokens-mean=4", "--nope: unknown flag"},
		{"--nope=3", "", "--nope: unknown flag"},
		{"-Q", "", "-Q: unknown flag"},
		{"--osl", "", "--prompt-output-tokens-mean: needs a value"},
		{"--osl --isl 3", "--prompt-input-tokens-mean=3", "--prompt-output-tokens-mean: needs a value"},
		{"--concurency 2", "", "--concurency: unknown flag; did you mean --concurrency?"},
		{"-- -m x", "-- -m x", ""},
		{"-h", "--help", ""},
		// A flag given twice is refused as AIPerf refuses it, under any
		// spelling; AIPerf's list flags append.
		{"--concurrency 4 --concurrency 8", "--concurrency=4 --concurrency=8",
			"--concurrency: given more than once; give it once (only list flags such as --header or --extra-inputs may repeat)"},
		{"--isl 5 --prompt-input-tokens-mean 6", "--prompt-input-tokens-mean=5 --prompt-input-tokens-mean=6",
			"--prompt-input-tokens-mean: given more than once (as --isl and --prompt-input-tokens-mean); give it once (only list flags such as --header or --extra-inputs may repeat)"},
		{"-v --verbose -v", "--verbose --verbose --verbose",
			"--verbose: given more than once (as -v and --verbose); give it once (only list flags such as --header or --extra-inputs may repeat)"},
		{"-H A:1 -H B:2 --header C:3", "--header=A:1 --header=B:2 --header=C:3", ""},
		{"-u a -u b --extra-inputs x:1 --extra-inputs y:2", "--url=a --url=b --extra-inputs=x:1 --extra-inputs=y:2", ""},
	}
	for _, tt := range tests {
		out, problems, _ := prepareProfileArgs(profileFlags(), strings.Fields(tt.in))
		var ps []string
		for _, p := range problems {
			ps = append(ps, p.Error())
		}
		if strings.Join(out, " ") != tt.want || strings.Join(ps, "; ") != tt.problems {
			t.Errorf("prepareProfileArgs(%q) = %q, %q; want %q, %q", tt.in, out, ps, tt.want, tt.problems)
		}
	}
}

func TestSpelled(t *testing.T) {
	t.Parallel()
	_, _, spelled := prepareProfileArgs(profileFlags(), []string{"--isl", "3", "-m", "x", "--concurrency", "2", "--num_requests", "3"})
	want := map[string]string{"--prompt-input-tokens-mean": "--isl", "--model-names": "-m", "--request-count": "--num_requests"}
	if len(spelled) != len(want) {
		t.Fatalf("spelled = %v; want %v", spelled, want)
	}
	for k, v := range want {
		if spelled[k] != v {
			t.Errorf("spelled[%s] = %q; want %q", k, spelled[k], v)
		}
	}
}

func FuzzPrepareProfileArgs(f *testing.F) {
	for _, s := range []string{"-m x -vv", "--isl=3 --osl", "-u a b --nope c", "-- -x", "-mH", "-=", "--=x", "-"} {
		f.Add(s)
	}
	fs := profileFlags()
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		out, _, _ := prepareProfileArgs(fs, args)
		// Every emitted flag is known, so pflag can parse the result
		// without unknown-flag or missing-value errors.
		dash := false
		for _, a := range out {
			if a == "--" {
				dash = true
			}
			if dash || !strings.HasPrefix(a, "-") || a == "-" {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !strings.HasPrefix(a, "--") || fs.Lookup(name) == nil {
				t.Fatalf("prepareProfileArgs(%q) emitted %q", args, a)
			}
		}
	})
}

func TestCommandLineQuoting(t *testing.T) {
	t.Parallel()
	fs := profileFlags()
	got := commandLine(fs, []string{"profile", "-m", "it's", "--request-rate", "2.5", "--goodput", "a:1 b:2", "-vv", "--ui", "nan"})
	want := `aiperf profile -m 'it'\''s' --request-rate 2.5 --goodput 'a:1 b:2' -vv --ui 'nan'`
	if got != want {
		t.Errorf("commandLine = %s\nwant %s", got, want)
	}
}

func FuzzCommandLineRedacts(f *testing.F) {
	for _, s := range []string{"-m x", "-u h1 h2", "--isl", "-H", "--api-key", "-vv --osl 3"} {
		f.Add(s, 0)
	}
	fs := profileFlags()
	f.Fuzz(func(t *testing.T, s string, where int) {
		args := append([]string{"profile"}, strings.Fields(s)...)
		n := uint(where)
		pos := 1 + int(n%uint(len(args)))
		var secretArgs []string
		switch n % 4 {
		case 0:
			secretArgs = []string{"--api-key", "SECRETVALUE"}
		case 1:
			secretArgs = []string{"--api_key=SECRETVALUE"}
		case 2:
			secretArgs = []string{"-H", "Authorization:Bearer SECRETVALUE"}
		default:
			secretArgs = []string{"--header", `{"X-Api-Key":"SECRETVALUE"}`}
		}
		args = append(args[:pos], append(secretArgs, args[pos:]...)...)
		if got := commandLine(fs, args); strings.Contains(got, "SECRETVALUE") {
			t.Fatalf("commandLine(%q) leaks the secret: %s", args, got)
		}
	})
}
