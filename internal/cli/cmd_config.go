package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
)

// newConfigCommand builds `aiperf config` and its subcommands, which
// check and preview config files without running anything.
func newConfigCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check, preview and create YAML config files",
		Long: "Work with the YAML config files that 'aiperf profile -f FILE' runs (AIPerf config v2).\n" +
			"Nothing is sent to any server.",
	}
	cmd.AddCommand(newConfigValidateCommand(env), newConfigExpandCommand(env), newConfigInitCommand(env), newConfigSchemaCommand(env))
	return cmd
}

// loadForCommand loads and fully checks a config file: its own problems,
// then each variation's configuration. Problems are printed, one per
// line, and turned into exit code 2.
func loadForCommand(env *Env, path string) (*configfile.File, []config.Variation, error) {
	f, err := configfile.Load(path, configfile.Options{LookupEnv: lookupEnv(env.Getenv)})
	var vars []config.Variation
	if err == nil {
		vars, err = f.Variations(config.Defaults())
	}
	if err != nil {
		list := unjoin(err)
		noun := "problems"
		if len(list) == 1 {
			noun = "problem"
		}
		fmt.Fprintf(env.Stderr, "Error: %s is not a valid config file (%d %s):\n", path, len(list), noun)
		for _, e := range list {
			for _, line := range strings.Split(e.Error(), "\n") {
				fmt.Fprintf(env.Stderr, "  %s\n", line)
			}
		}
		return nil, nil, &config.ExitError{Code: config.ExitUsage}
	}
	for _, w := range f.Warnings() {
		fmt.Fprintf(env.Stderr, "Warning: %s\n", w)
	}
	return f, vars, nil
}

func newConfigValidateCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a config file and report every problem with its line",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, vars, err := loadForCommand(env, args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%s)\n", args[0], sweepSummary(f, vars))
			return err
		},
	}
}

func newConfigExpandCommand(env *Env) *cobra.Command {
	var full bool
	var format string
	index := -1
	cmd := &cobra.Command{
		Use:   "expand FILE",
		Short: "List the variations a config file's sweep will run",
		Long: "List the variations a config file's sweep will run, one per line with the\n" +
			"parameters that distinguish it; --full prints each variation's complete\n" +
			"configuration as JSON (secrets redacted). --format yaml|json prints AIPerf's\n" +
			"document (sweep_type, variations with index, dir_name, label, values and,\n" +
			"with --full, the configuration as benchmark).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(expandFormats, format) {
				return usageErrorf("--format: invalid choice %q (choose from %s)", format, strings.Join(expandFormats, ", "))
			}
			f, vars, err := loadForCommand(env, args[0])
			if err != nil {
				return err
			}
			if f.SweepType() == configfile.SweepAdaptive && format != "text" {
				return usageErrorf("an adaptive_search sweep chooses its variations while it runs: there is no static expansion to print as %s", format)
			}
			if index >= len(vars) || cmd.Flags().Changed("index") && index < 0 {
				return usageErrorf("--index %d out of range: the file has %d variations", index, len(vars))
			}
			if index >= 0 {
				full = true // one variation is inspected in full, as in AIPerf
			}
			if format != "text" {
				return writeVariationsDoc(cmd.OutOrStdout(), format, f.SweepType(), vars, full, index)
			}
			return writeVariations(cmd.OutOrStdout(), f.SweepType(), vars, full, index)
		},
	}
	cmd.Flags().BoolVarP(&full, "full", "F", false, "Print each variation's complete configuration.")
	cmd.Flags().IntVarP(&index, "index", "i", -1, "Print only the variation with this 0-based index (implies --full).")
	cmd.Flags().StringVarP(&format, "format", "f", "text", "Output format: text, yaml or json.")
	return cmd
}

// writeVariations prints the variations of a sweep.
func writeVariations(w io.Writer, sweepType string, vars []config.Variation, full bool, index int) error {
	var b strings.Builder
	if sweepType == "" {
		sweepType = "no"
	}
	noun := "variations"
	if len(vars) == 1 {
		noun = "variation"
	}
	fmt.Fprintf(&b, "%d %s (%s sweep)\n", len(vars), noun, sweepType)
	for _, v := range vars {
		if index >= 0 && v.Index != index {
			continue
		}
		fmt.Fprintf(&b, "[%d] %s\n", v.Index, variationText(v))
		if full {
			data, err := json.MarshalIndent(v.Config, "    ", "  ")
			if err != nil {
				return fmt.Errorf("variation %d: %w", v.Index, err)
			}
			b.WriteString("    ")
			b.Write(data)
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// variationText is "name: path=value, ..." (name only for named
// scenarios; "base" without parameters).
func variationText(v config.Variation) string {
	parts := make([]string, len(v.Params))
	for i, p := range v.Params {
		val, _ := json.Marshal(p.Value)
		parts[i] = p.Path + "=" + string(val)
	}
	params := strings.Join(parts, ", ")
	switch {
	case v.Label != "" && params != "":
		return v.Label + ": " + params
	case v.Label != "":
		return v.Label
	case params == "":
		return "base"
	}
	return params
}

func newConfigInitCommand(env *Env) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented starter config file, or one of AIPerf's bundled templates (--list)",
		Long: "Without --template, write this tool's commented starter file to FILE (default\n" +
			"aiperf.yaml; - for stdout). --template NAME prints one of AIPerf 0.13's bundled\n" +
			"templates (the same names and configurations) to stdout, or writes it to\n" +
			"--output; --list and --search show them. --model and --url replace the\n" +
			"template's model and endpoint URL.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.file = args[0]
			}
			return runConfigInit(cmd.OutOrStdout(), &o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.force, "force", false, "Overwrite FILE if it exists (--output always overwrites, as in AIPerf).")
	fl.StringVarP(&o.template, "template", "t", "", "Template name to generate (e.g. minimal, goodput_slo).")
	fl.BoolVarP(&o.list, "list", "l", false, "List the bundled templates and exit.")
	fl.StringVarP(&o.search, "search", "s", "", "Filter templates by keyword.")
	fl.StringVarP(&o.category, "category", "c", "", "Filter --list by category.")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "Show the tags and difficulty columns.")
	fl.StringVarP(&o.model, "model", "m", "", "Override the template's model name.")
	fl.StringVarP(&o.url, "url", "u", "", "Override the template's endpoint URL.")
	fl.StringVarP(&o.output, "output", "o", "", "Write to this file instead of stdout.")
	// AIPerf's --no-list and --no-verbose.
	fl.BoolFunc("no-list", "Opposite of --list.", func(string) error { o.list = false; return nil })
	fl.BoolFunc("no-verbose", "Opposite of --verbose.", func(string) error { o.verbose = false; return nil })
	return cmd
}

func newConfigSchemaCommand(env *Env) *cobra.Command {
	_ = env
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of config files (for editor completion)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(configfile.Schema())
			return err
		},
	}
}

// sweepSummary says what a valid config file runs: "no sweep" or its
// sweep type and number of variations.
func sweepSummary(f *configfile.File, vars []config.Variation) string {
	if t := f.SweepType(); t != "" {
		return fmt.Sprintf("%s sweep of %d variations", t, len(vars))
	}
	return "no sweep"
}
