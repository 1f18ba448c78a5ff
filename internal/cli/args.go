package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
)

// prepareProfileArgs rewrites a `profile` command line into a form pflag
// parses without stopping at the first problem, and reports the problems
// pflag would have stopped at.
//
// pflag aborts at the first unknown flag or missing value, but a usage
// error must list every problem at once. So this scan, which knows the flag
// set, resolves each flag to its canonical name (aliases and snake_case go
// through the set's normaliser) and emits it as "--name=value" or a bare
// "--name" for booleans. Along the way it:
//   - rewrites "-vv" (and "-vvv"...) to --extra-verbose, since pflag
//     shorthands are one letter;
//   - expands AIPerf's multi-value flags (`--extra-inputs a:1 b:2`,
//     `-u h1 h2`, `-H A:1 B:2`): following arguments that do not start
//     with "-" are further values of the same flag;
//   - drops unknown flags (and a following non-flag argument, which would
//     be their value), recording "unknown flag" problems;
//   - records flags left without a value at the end of the line;
//   - refuses a flag given twice (under any of its spellings) unless it is
//     one of AIPerf's list flags, which append (option.Option.Repeatable).
//
// Positional arguments are passed through; `profile` accepts none and
// reports them later. Everything after "--" is positional.
//
// spelled maps a canonical flag ("--prompt-input-tokens-mean") to the
// spelling the user typed ("--isl") when they differ, so that problems can
// be reported in the user's words.
func prepareProfileArgs(fs *pflag.FlagSet, args []string) (out []string, problems []error, spelled map[string]string) {
	multi, repeatable := multiValueFlags(), repeatableFlags()
	spelled = map[string]string{}
	typedAs := map[string][]string{} // canonical flag -> each spelling typed, in order
	note := func(f *pflag.Flag, typed string) {
		if c := "--" + f.Name; typed != c {
			spelled[c] = typed
		}
		typedAs[f.Name] = append(typedAs[f.Name], typed)
		if n := len(typedAs[f.Name]); n == 2 && !repeatable[f.Name] {
			problems = append(problems, repeatedFlag("--"+f.Name, typedAs[f.Name]))
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out = append(out, args[i:]...)
			return out, problems, spelled
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, value, hasValue := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			if f == nil {
				problems = append(problems, unknownFlag(fs, "--"+name))
				if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++ // most likely the unknown flag's value
				}
				continue
			}
			note(f, "--"+name)
			i = emit(fs, f, value, hasValue, args, i, multi, &out, &problems)
		case len(a) > 1 && a[0] == '-' && a != "-":
			if strings.Trim(a[1:], "v") == "" && len(a) > 2 {
				out = append(out, "--extra-verbose")
				continue
			}
			i = emitShorthands(fs, a, args, i, multi, &out, &problems, note)
		default:
			out = append(out, a)
		}
	}
	return out, problems, spelled
}

// emit appends flag f with its value to out. value/hasValue come from a
// "--name=value" token; otherwise a non-boolean takes the next argument
// unless it is a known flag: "--osl --isl 5" reports --osl without a value
// instead of reading "--isl" as its value, while "--random-seed -1" still
// reaches validation. It returns the index of the last argument consumed.
func emit(fs *pflag.FlagSet, f *pflag.Flag, value string, hasValue bool, args []string, i int, multi map[string]bool, out *[]string, problems *[]error) int {
	name := "--" + f.Name
	if f.NoOptDefVal != "" { // boolean, or a flag whose values are optional
		if hasValue {
			*out = append(*out, name+"="+value)
		} else {
			*out = append(*out, name)
		}
		if optionalValueFlags()[f.Name] {
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				*out = append(*out, name+"="+args[i])
			}
		}
		return i
	}
	switch {
	case hasValue:
	case i+1 < len(args) && !isKnownFlag(fs, args[i+1]):
		i++
		value = args[i]
	default:
		*problems = append(*problems, &config.FieldError{Flag: name, Problem: "needs a value"})
		return i
	}
	*out = append(*out, name+"="+value)
	if multi[f.Name] {
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			*out = append(*out, name+"="+args[i])
		}
	}
	return i
}

// emitShorthands handles a "-x" token, which may group booleans ("-v") or
// carry its value ("-mNAME", "-m=NAME"). It returns the index of the last
// argument consumed.
func emitShorthands(fs *pflag.FlagSet, a string, args []string, i int, multi map[string]bool, out *[]string, problems *[]error, note func(*pflag.Flag, string)) int {
	for j := 1; j < len(a); j++ {
		f := fs.ShorthandLookup(a[j : j+1])
		if f == nil {
			*problems = append(*problems, unknownFlag(fs, "-"+a[j:j+1]))
			return i
		}
		note(f, "-"+f.Shorthand)
		if f.NoOptDefVal != "" && (j+1 >= len(a) || a[j+1] != '=') {
			*out = append(*out, "--"+f.Name)
			continue
		}
		rest := strings.TrimPrefix(a[j+1:], "=")
		return emit(fs, f, rest, rest != "", args, i, multi, out, problems)
	}
	return i
}

// repeatedFlag is the problem of flag (canonical) given more than once,
// with the two spellings typed when they differ.
func repeatedFlag(flag string, typed []string) error {
	how := ""
	if typed[0] != typed[1] {
		how = " (as " + typed[0] + " and " + typed[1] + ")"
	}
	return &config.FieldError{Flag: flag, Problem: "given more than once" + how + "; give it once (only list flags such as --header or --extra-inputs may repeat)"}
}

// isKnownFlag reports whether a is a flag of fs ("--name", "--name=v",
// "-x...", "-vv") rather than a value.
func isKnownFlag(fs *pflag.FlagSet, a string) bool {
	switch {
	case strings.HasPrefix(a, "--") && len(a) > 2:
		name, _, _ := strings.Cut(a[2:], "=")
		return fs.Lookup(name) != nil
	case len(a) > 1 && a[0] == '-':
		return fs.ShorthandLookup(a[1:2]) != nil
	}
	return false
}

// unknownFlag builds the problem for an unknown flag, suggesting the
// closest known name when there is one.
func unknownFlag(fs *pflag.FlagSet, name string) error {
	msg := "unknown flag"
	if s := suggestFlag(fs, strings.TrimLeft(name, "-")); s != "" {
		msg += "; did you mean --" + s + "?"
	}
	return &config.FieldError{Flag: name, Problem: msg}
}

// suggestFlag returns the known flag name (canonical or alias) closest to
// name, within an edit distance of 2, or "".
func suggestFlag(fs *pflag.FlagSet, name string) string {
	if len(name) < 3 {
		return ""
	}
	name = strings.ReplaceAll(name, "_", "-")
	best, bestD := "", 3
	consider := func(candidate string) {
		if d := configfile.EditDistance(name, candidate); d < bestD {
			best, bestD = candidate, d
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		consider(f.Name)
		for _, a := range f.Annotations[annAliases] {
			if strings.HasPrefix(a, "--") {
				consider(strings.TrimPrefix(a, "--"))
			}
		}
	})
	return best
}
