package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
)

// sweepList is a magic-list flag given several values, e.g.
// "--concurrency 8,16,32": the flag (canonical, with dashes) and its
// elements as typed.
type sweepList struct {
	flag   string
	values []string
}

// noteSweep records a magic list; a flag repeated with lists keeps the
// last one.
func (p *problemList) noteSweep(flag string, values []string) {
	for i := range p.sweeps {
		if p.sweeps[i].flag == flag {
			p.sweeps[i].values = values
			return
		}
	}
	p.sweeps = append(p.sweeps, sweepList{flag: flag, values: values})
}

// magicInt parses an int option. A magic-list option given a comma list
// records the list as a sweep (each element must parse) and takes the
// first element, so that the base configuration validates as the first
// variation would.
func (r recorder) magicInt(s string, magic bool) (int, error) {
	if !magic || !strings.Contains(s, ",") {
		return parseInt(s, magic)
	}
	elems := config.SplitList(s)
	var first int
	for i, e := range elems {
		n, err := config.ParseInt(e)
		if err != nil {
			return 0, err
		}
		if i == 0 {
			first = n
		}
	}
	r.probs.noteSweep(r.flag, elems)
	return first, nil
}

// magicFloat is magicInt for numbers.
func (r recorder) magicFloat(s string, magic bool) (float64, error) {
	if !magic || !strings.Contains(s, ",") {
		return parseFloat(s, magic)
	}
	elems := config.SplitList(s)
	var first float64
	for i, e := range elems {
		f, err := config.ParseFloat(e)
		if err != nil {
			return 0, err
		}
		if i == 0 {
			first = f
		}
	}
	r.probs.noteSweep(r.flag, elems)
	return first, nil
}

// sweepValue reads a magic-list element the way a config file would hold
// it: an integer, else a number.
func sweepValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// sweepCombos returns, per variation, the index into each list: every
// combination for grid (the last list varies fastest), element-wise for
// zip (the lists must have the same length).
func sweepCombos(lists []sweepList, typ config.SweepType) ([][]int, error) {
	if typ == config.SweepZip {
		n := len(lists[0].values)
		for _, l := range lists[1:] {
			if len(l.values) != n {
				var lens []string
				for _, m := range lists {
					lens = append(lens, fmt.Sprintf("%s has %d", m.flag, len(m.values)))
				}
				return nil, fmt.Errorf("--sweep-type zip needs lists of the same length (%s)", strings.Join(lens, ", "))
			}
		}
		combos := make([][]int, n)
		for i := range combos {
			combos[i] = make([]int, len(lists))
			for j := range combos[i] {
				combos[i][j] = i
			}
		}
		return combos, nil
	}
	total := 1
	for _, l := range lists {
		if total *= len(l.values); total > configfile.MaxVariations {
			return nil, fmt.Errorf("the sweep flags make more than %d variations", configfile.MaxVariations)
		}
	}
	combos := [][]int{{}}
	for _, l := range lists {
		var next [][]int
		for _, c := range combos {
			for i := range l.values {
				next = append(next, append(append([]int(nil), c...), i))
			}
		}
		combos = next
	}
	return combos, nil
}

// flagVariations expands magic lists given without a config file: each
// variation is base with the listed flags set again to one element each,
// through the same flag values that parsed the command line (the
// converter stays the only code that reads flags). paths names each flag's
// parameter (a dot path into the config file's benchmark: body).
func flagVariations(base config.Config, lists []sweepList, typ config.SweepType, paths map[string]string) ([]config.Variation, error) {
	combos, err := sweepCombos(lists, typ)
	if err != nil {
		return nil, err
	}
	var out []config.Variation
	var errs []error
	for i, c := range combos {
		cfg := base
		var probs problemList
		fs := pflag.NewFlagSet("variation", pflag.ContinueOnError)
		registerProfileFlags(fs, &cfg, &probs)
		params := make([]config.Param, len(lists))
		for j, l := range lists {
			name := strings.TrimPrefix(l.flag, "--")
			v := l.values[c[j]]
			if err := fs.Set(name, v); err != nil {
				probs.add(l.flag, err)
			}
			params[j] = config.Param{Path: paramPath(name, paths), Value: sweepValue(v)}
		}
		err := errors.Join(append(probs.errs, cfg.Validate())...)
		if err != nil {
			errs = append(errs, fmt.Errorf("variation %d: %w", i, err))
			continue
		}
		out = append(out, config.Variation{Index: i, Params: params, Config: cfg})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// paramPath is a flag's sweep parameter path: its config-file path under
// benchmark: (the dataset named "default"), else the flag's name.
func paramPath(flag string, paths map[string]string) string {
	p, ok := paths[flag]
	if !ok || !strings.HasPrefix(p, "benchmark.") {
		return strings.ReplaceAll(flag, "-", "_")
	}
	p = strings.TrimPrefix(p, "benchmark.")
	return strings.Replace(p, "datasets.0.", "datasets.default.", 1)
}
