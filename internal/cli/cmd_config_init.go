package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
)

// initOptions are `aiperf config init`'s: AIPerf 0.13's template flags
// plus FILE and --force for this tool's starter file.
type initOptions struct {
	file, template, search, category, model, url, output string
	force, list, verbose                                 bool
	// command names the command in hints ("" = aiperf config init).
	command string
}

// runConfigInit lists, searches or writes a template, or writes the
// starter file.
func runConfigInit(w io.Writer, o *initOptions) error {
	command := o.command
	if command == "" {
		command = "aiperf config init"
	}
	if o.list || o.search != "" {
		return listTemplates(w, o, command)
	}
	if o.template != "" && o.file != "" && o.output != "" {
		return usageErrorf("give the output file once: FILE or --output")
	}
	tm := configfile.Template{Name: "starter", Content: configfile.Starter}
	if o.template != "" {
		var err error
		if tm, err = configfile.LookupTemplate(o.template); err != nil {
			return &config.ExitError{Code: config.ExitFailure, Err: err}
		}
	}
	content, err := tm.WithOverrides(o.model, o.url)
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	switch {
	case o.output != "":
		return writeConfigOutput(w, o, content)
	case o.file == "-" || o.file == "" && o.template != "":
		_, err := io.WriteString(w, content) // a template goes to stdout, as in AIPerf
		return err
	}
	return writeConfigFile(w, o, content)
}

// listTemplates answers --list and --search.
func listTemplates(w io.Writer, o *initOptions, command string) error {
	switch {
	case o.list:
		ts := configfile.TemplatesInCategory(o.category)
		if len(ts) == 0 {
			_, err := fmt.Fprintf(w, "No templates in category '%s'.\n", o.category)
			return err
		}
		writeTemplateTable(w, ts, o.verbose)
		_, err := fmt.Fprintf(w, "Use '%s --template <name>' to generate a template.\n", command)
		return err
	case o.search != "":
		ts := configfile.SearchTemplates(o.search)
		if len(ts) == 0 {
			_, err := fmt.Fprintf(w, "No templates match '%s'.\nRun '%s --list' to see all templates.\n", o.search, command)
			return err
		}
		writeTemplateTable(w, ts, o.verbose)
		return nil
	}
	return nil
}

// writeConfigOutput is AIPerf's --output: parent directories made, an
// existing file replaced.
func writeConfigOutput(w io.Writer, o *initOptions, content string) error {
	if err := os.MkdirAll(filepath.Dir(o.output), 0o755); err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	if err := os.WriteFile(o.output, []byte(content), 0o644); err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	var err error
	if o.template != "" {
		_, err = fmt.Fprintf(w, "Wrote %s template to %s\n", o.template, o.output)
	} else {
		_, err = fmt.Fprintf(w, "Wrote %s. Run it with: aiperf profile -f %s\n", o.output, o.output)
	}
	return err
}

// writeConfigFile writes FILE (aiperf.yaml by default), refusing to
// replace one without --force.
func writeConfigFile(w io.Writer, o *initOptions, content string) error {
	path := o.file
	if path == "" {
		path = "aiperf.yaml"
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if o.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("%s exists; use --force to overwrite it", path)}
	}
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	_, err = io.WriteString(f, content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	_, err = fmt.Fprintf(w, "Wrote %s. Run it with: aiperf profile -f %s\n", path, path)
	return err
}

// writeTemplateTable prints templates grouped by category (AIPerf's order),
// with the tags and difficulty columns when verbose.
func writeTemplateTable(w io.Writer, ts []configfile.Template, verbose bool) {
	groups := map[string][]configfile.Template{}
	var order []string
	for _, t := range ts {
		if _, ok := groups[t.Category]; !ok {
			order = append(order, t.Category)
		}
		groups[t.Category] = append(groups[t.Category], t)
	}
	for _, cat := range order {
		fmt.Fprintln(w, cat)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		head := "  Name\tTitle\tDescription"
		if verbose {
			head += "\tTags\tDifficulty"
		}
		fmt.Fprintln(tw, head)
		for _, t := range groups[cat] {
			row := "  " + t.Name + "\t" + t.Title + "\t" + t.Description
			if verbose {
				row += "\t" + strings.Join(t.Tags, ", ") + "\t" + t.Difficulty
			}
			fmt.Fprintln(tw, row)
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
}
