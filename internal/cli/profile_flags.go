package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
)

// profileGroups lists the help groups in print order.
func profileGroups() []string { return option.Groups() }

// Flag annotation keys read by the help renderer.
const (
	annGroup   = "aiperf_group"   // one value: the help group
	annAliases = "aiperf_aliases" // alias spellings, with dashes
	annDefault = "aiperf_default" // default shown in help, when not DefValue
	annChoices = "aiperf_choices" // accepted values shown in help
	annMeta    = "aiperf_meta"    // value placeholder, e.g. "<n>"
)

// multiValueFlags are the flags that, as in AIPerf, take several values
// after one flag name (`--extra-inputs a:1 b:2`, `-u host1 host2`).
func multiValueFlags() map[string]bool {
	m := map[string]bool{}
	for _, o := range option.All() {
		if o.Multi {
			m[o.Name] = true
		}
	}
	return m
}

// repeatableFlags may be given more than once (option.Option.Repeatable).
func repeatableFlags() map[string]bool {
	m := map[string]bool{}
	for _, o := range option.All() {
		if o.Repeatable {
			m[o.Name] = true
		}
	}
	return m
}

// optionalValueFlags take zero or more values after the flag name
// (`--gpu-telemetry`, `--gpu-telemetry dashboard node1:9400`); they are
// also multi-value flags.
func optionalValueFlags() map[string]bool {
	m := map[string]bool{}
	for _, o := range option.All() {
		if o.OptionalValue {
			m[o.Name] = true
		}
	}
	return m
}

// flagBuilder registers profile flags bound to a Config, recording aliases
// for the normaliser and help annotations as it goes.
type flagBuilder struct {
	fs      *pflag.FlagSet
	probs   *problemList
	aliases map[string]string // alias (kebab-case) -> canonical name
	group   string
}

// spec describes one flag beyond its value.
type spec struct {
	name, short string
	aliases     []string // long aliases without dashes
	usage       string
	meta        string   // value placeholder; "" for booleans
	def         string   // default shown in help; "" = none
	choices     []string // shown in help
}

// add registers v under s and returns the flag.
func (b *flagBuilder) add(v pflag.Value, s spec) *pflag.Flag {
	f := b.fs.VarPF(v, s.name, s.short, s.usage)
	if bv, ok := v.(interface{ IsBoolFlag() bool }); ok && bv.IsBoolFlag() {
		f.NoOptDefVal = "true"
	}
	f.DefValue = s.def
	ann := map[string][]string{annGroup: {b.group}}
	if len(s.aliases) > 0 {
		names := make([]string, len(s.aliases))
		for i, a := range s.aliases {
			b.aliases[a] = s.name
			names[i] = "--" + a
		}
		ann[annAliases] = names
	}
	if s.meta != "" {
		ann[annMeta] = []string{s.meta}
	}
	if len(s.choices) > 0 {
		ann[annChoices] = s.choices
	}
	f.Annotations = ann
	return f
}

// rec returns a recorder for flag name.
func (b *flagBuilder) rec(name string) recorder { return recorder{flag: "--" + name, probs: b.probs} }

// normalizer maps every alias and snake_case spelling to the canonical
// flag name, so "--request_count", "--num-requests" and "--num_requests"
// all set --request-count.
func normalizer(aliases map[string]string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		n := strings.ReplaceAll(name, "_", "-")
		if c, ok := aliases[n]; ok {
			return pflag.NormalizedName(c)
		}
		return pflag.NormalizedName(n)
	}
}

// registerProfileFlags defines every `aiperf profile` flag on fs, bound to
// cfg, from the option table. Problems found while parsing values go to
// probs.
func registerProfileFlags(fs *pflag.FlagSet, cfg *config.Config, probs *problemList) {
	b := &flagBuilder{fs: fs, probs: probs, aliases: map[string]string{}}
	fs.SetNormalizeFunc(normalizer(b.aliases))
	fs.SortFlags = false
	for _, o := range option.All() {
		b.addOption(cfg, o)
	}
}

// addOption registers o (and its --no- form) bound to cfg.
func (b *flagBuilder) addOption(cfg *config.Config, o option.Option) {
	b.group = o.Group
	f := b.add(b.value(cfg, o, o.Name, o.Invert), spec{name: o.Name, short: o.Short, aliases: o.Aliases,
		usage: o.Usage, meta: o.Meta, def: o.Default, choices: o.Choices})
	if o.NoOptDefVal != "" {
		f.NoOptDefVal = o.NoOptDefVal
	}
	if len(o.HelpAliases) > 0 {
		// pflag shorthands are one letter; "-vv" is rewritten to
		// --extra-verbose before parsing (see prepareProfileArgs) and
		// shown in help through this annotation.
		f.Annotations[annAliases] = o.HelpAliases
	}
	if o.NoForm {
		no := "no-" + o.Name
		b.add(b.value(cfg, o, no, !o.Invert), spec{name: no, usage: "Opposite of --" + o.Name + "."})
	}
}
