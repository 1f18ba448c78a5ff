package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
			what := "no sweep"
			if t := f.SweepType(); t != "" {
				what = fmt.Sprintf("%s sweep of %d variations", t, len(vars))
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: valid (%s)\n", args[0], what)
			return err
		},
	}
}

func newConfigExpandCommand(env *Env) *cobra.Command {
	var full bool
	index := -1
	cmd := &cobra.Command{
		Use:   "expand FILE",
		Short: "List the variations a config file's sweep will run",
		Long: "List the variations a config file's sweep will run, one per line with the\n" +
			"parameters that distinguish it; --full prints each variation's complete\n" +
			"configuration as JSON (secrets redacted).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, vars, err := loadForCommand(env, args[0])
			if err != nil {
				return err
			}
			if index >= len(vars) {
				return fmt.Errorf("--index %d: the file has %d variations", index, len(vars))
			}
			return writeVariations(cmd.OutOrStdout(), f.SweepType(), vars, full, index)
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "Print each variation's complete configuration as JSON.")
	cmd.Flags().IntVar(&index, "index", -1, "Print only the variation with this 0-based index.")
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
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented starter config file (default aiperf.yaml; - for stdout)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "aiperf.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if path == "-" {
				_, err := io.WriteString(cmd.OutOrStdout(), configfile.Starter)
				return err
			}
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(path, flags, 0o644)
			if errors.Is(err, os.ErrExist) {
				return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("%s exists; use --force to overwrite it", path)}
			}
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			_, err = io.WriteString(f, configfile.Starter)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "Wrote %s. Run it with: aiperf profile -f %s\n", path, path)
			return err
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "Overwrite FILE if it exists.")
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
