package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
)

// configFlag is the canonical name of -f/--config.
const configFlag = "config"

// configFileState is what a -f/--config file contributed to a profile
// command.
type configFileState struct {
	file *configfile.File
	// problems are the file's problems, reported with the flags'.
	problems []error
	// vars are the variations, set once the command line validated.
	vars []config.Variation
}

// configPath returns the -f/--config value from prepared arguments
// ("--config=path"); the last one wins.
func configPath(clean []string) string {
	path := ""
	for _, a := range clean {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--"+configFlag+"="); ok {
			path = v
		}
	}
	return path
}

// loadConfigFile loads the -f/--config file named in the prepared
// arguments into p.cfg, before cobra parses the flags on top of it.
func (p *profileCommand) loadConfigFile(clean []string) {
	path := configPath(clean)
	if path == "" {
		return
	}
	f, err := configfile.Load(path, configfile.Options{LookupEnv: lookupEnv(p.env.Getenv)})
	if err == nil {
		err = f.Apply(&p.cfg)
	}
	if err != nil {
		p.cf.problems = unjoin(err)
		return
	}
	p.cf.file = f
	for _, w := range f.Warnings() {
		fmt.Fprintf(p.env.Stderr, "Warning: %s\n", w)
	}
}

// lookupEnv adapts Env.Getenv for ${VAR} substitution: an empty value
// counts as unset, so ${VAR:default} takes its default.
func lookupEnv(getenv func(string) string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if getenv == nil {
			return "", false
		}
		v := getenv(name)
		return v, v != ""
	}
}

// explicitFlags lists the flags given on the command line, by the name of
// the option they set ("--no-x" sets x).
func explicitFlags(fs *pflag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *pflag.Flag) {
		name := f.Name
		if base, ok := strings.CutPrefix(name, "no-"); ok && fs.Lookup(base) != nil {
			name = base
		}
		names = append(names, name)
	})
	return names
}

// expandSweep computes the variations of a validated command line: the
// config file's sweep or the magic-list flags' sweep; none without a
// sweep (p.cfg alone runs).
// The explicit flags are written into the config file's raw envelope
// first, so every variation keeps them. It returns the problems found.
func (p *profileCommand) expandSweep() []error {
	lists := p.valueProblems.sweeps
	typ := p.cfg.Experiment.SweepType
	if typ == "" {
		typ = config.SweepGrid
	}
	var err error
	switch {
	case p.cf.file != nil && p.cf.file.SweepType() == "" && len(lists) == 0:
		// p.cfg is the file with the flags on top: nothing to expand.
	case p.cf.file != nil:
		f := p.cf.file
		if err := f.Override(&p.cfg, explicitFlags(p.cmd.Flags())); err != nil {
			return unjoin(err)
		}
		if len(lists) > 0 {
			paths := configfile.FlagPaths()
			params := make([]configfile.SweepParam, 0, len(lists))
			for _, l := range lists {
				name := strings.TrimPrefix(l.flag, "--")
				if _, ok := paths[name]; !ok {
					return []error{&config.FieldError{Flag: l.flag, Problem: "a sweep list of this flag cannot be combined with a config file"}}
				}
				sp := configfile.SweepParam{Path: paramPath(name, paths)}
				for _, v := range l.values {
					sp.Values = append(sp.Values, sweepValue(v))
				}
				params = append(params, sp)
			}
			if err := f.AddSweep(string(typ), params); err != nil {
				return []error{fmt.Errorf("%s: %w", f.Name(), err)}
			}
		}
		p.cf.vars, err = f.Variations(p.cfg)
	case len(lists) > 0:
		p.cf.vars, err = flagVariations(p.cfg, lists, typ, configfile.FlagPaths())
	}
	if err != nil {
		return unjoin(err)
	}
	return nil
}

// sweepVariations returns the variations expandSweep computed, with cfg's
// endpoint URLs when cfg benchmarks the embedded mock server (whose
// address is known only once it runs).
func (p *profileCommand) sweepVariations(cfg config.Config) []config.Variation {
	if len(p.cf.vars) == 0 {
		return []config.Variation{{Index: 0, Label: "base", Config: cfg}}
	}
	out := make([]config.Variation, len(p.cf.vars))
	for i, v := range p.cf.vars {
		if cfg.Endpoint.MockServer {
			v.Config.Endpoint.URLs = cfg.Endpoint.URLs
		}
		out[i] = v
	}
	return out
}
