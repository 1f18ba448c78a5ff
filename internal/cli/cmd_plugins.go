package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// newPluginsCommand builds `aiperf plugins [category] [name]`, which lists
// what is compiled in, as AIPerf's command lists its plugins.yaml.
func newPluginsCommand(env *Env) *cobra.Command {
	var all, validate bool
	cmd := &cobra.Command{
		Use:   "plugins [category] [name]",
		Short: "List the plugins compiled in: endpoints, dataset loaders, arrival patterns, exporters, ...",
		Long: "With no argument, summarise the package; --all lists every category and its plugins;\n" +
			"a category lists its plugins (aiperf plugins endpoint), a word shared by several categories\n" +
			"lists all of them (aiperf plugins dataset: composers, both loader kinds, samplers); a category\n" +
			"and a name show one\n" +
			"plugin with its metadata (aiperf plugins endpoint chat). Categories may be written with\n" +
			"hyphens or underscores. --validate checks that every endpoint can be built.\n\n" +
			"Exit codes: 0 success, 2 unknown category or plugin, or a failed --validate.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			cat := builtin.Catalog()
			width := terminalWidth(env)
			switch {
			case validate:
				return validatePlugins(w)
			case len(args) == 0 && !all:
				return showPackage(w, cat, env.Version, width)
			case len(args) == 0:
				return showCategories(w, cat, width)
			case len(args) == 1:
				return showCategory(w, cat, args[0], width)
			default:
				return showPlugin(w, cat, args[0], args[1], width)
			}
		},
	}
	cmd.Flags().BoolVarP(&all, "all", "a", false, "show every category and its plugins")
	cmd.Flags().BoolVarP(&validate, "validate", "v", false, "check that every registered plugin can be built")
	return cmd
}

// terminalWidth is the width tables wrap to: the terminal's, else 100.
func terminalWidth(env *Env) int {
	if env.IsTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 100
}

// unknownPlugin makes an unknown category or plugin exit with 2.
type unknownPlugin struct{ msg string }

func (e *unknownPlugin) Error() string { return e.msg }

func showPackage(w io.Writer, cat *plugin.Catalog, v VersionInfo, width int) error {
	rows := [][]string{{"aiperf-go", v.Version, fmt.Sprint(cat.Len()),
		"AIPerf in Go: a benchmarking tool for generative AI inference servers, with AIPerf's flags, metrics and artifacts"}}
	_, err := fmt.Fprintf(w, "%s\nUsage: aiperf plugins --all to see all categories and plugins\n",
		export.Table("Installed Packages", []string{"Package", "Version", "Plugins", "Description"}, rows, width))
	return err
}

func showCategories(w io.Writer, cat *plugin.Catalog, width int) error {
	var rows [][]string
	for _, c := range cat.Categories() {
		var names []string
		for _, e := range cat.Entries(c.Name) {
			names = append(names, e.Name)
		}
		rows = append(rows, []string{c.Title(), strings.Join(names, ", ")})
	}
	_, err := fmt.Fprintf(w, "%s\nUsage: aiperf plugins <category> to see available types\n",
		export.Table("Plugin Categories", []string{"Category", "Plugins"}, rows, width))
	return err
}

func showCategory(w io.Writer, cat *plugin.Catalog, name string, width int) error {
	c, ok := cat.Category(name)
	if !ok {
		// A word shared by several categories ("dataset", "exporter")
		// shows all of them, one after the other.
		if group := categoriesWithWord(cat, name); len(group) > 0 {
			for i, g := range group {
				if i > 0 {
					fmt.Fprintln(w)
				}
				if err := showCategory(w, cat, g, width); err != nil {
					return err
				}
			}
			return nil
		}
		return &unknownPlugin{fmt.Sprintf("Unknown category: %s\nAvailable: %s", name, categoryNames(cat))}
	}
	var rows [][]string
	for _, e := range cat.Entries(c.Name) {
		rows = append(rows, []string{e.Name, e.Description})
	}
	_, err := fmt.Fprintf(w, "%s\n\n%s\nUsage: aiperf plugins %s <type> for details\n", c.Description,
		export.Table(c.Title()+" Types", []string{"Type", "Description"}, rows, width), c.Name)
	return err
}

func showPlugin(w io.Writer, cat *plugin.Catalog, category, name string, width int) error {
	c, ok := cat.Category(category)
	if !ok {
		return &unknownPlugin{fmt.Sprintf("Unknown category: %s\nAvailable: %s", category, categoryNames(cat))}
	}
	e, err := cat.Entry(c.Name, name)
	if err != nil {
		var names []string
		for _, e := range cat.Entries(c.Name) {
			names = append(names, e.Name)
		}
		return &unknownPlugin{fmt.Sprintf("Not found: %s:%s\nAvailable: %s", c.Name, name, strings.Join(names, ", "))}
	}
	rows := [][]string{{"Type", e.Name}, {"Category", c.Name}, {"Package", "aiperf-go"}}
	for _, f := range e.Metadata {
		rows = append(rows, []string{f.Name, f.Value})
	}
	rows = append(rows, []string{"Description", e.Description})
	_, err = fmt.Fprint(w, export.Table(c.Name+":"+e.Name, []string{"Field", "Value"}, rows, width))
	return err
}

// categoriesWithWord lists the categories whose name has word as one of
// its underscore-separated words.
func categoriesWithWord(cat *plugin.Catalog, word string) []string {
	word = strings.ReplaceAll(strings.ToLower(word), "-", "_")
	var out []string
	for _, c := range cat.Categories() {
		for _, part := range strings.Split(c.Name, "_") {
			if part == word {
				out = append(out, c.Name)
				break
			}
		}
	}
	return out
}

func categoryNames(cat *plugin.Catalog) string {
	var names []string
	for _, c := range cat.Categories() {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// validatePlugins runs builtin.Validate and reports as AIPerf's
// --validate does.
func validatePlugins(w io.Writer) error {
	errs := builtin.Validate()
	fmt.Fprintln(w, "Validating plugins...")
	if len(errs) > 0 {
		fmt.Fprintln(w, "(FAIL) Plugins")
		for _, e := range errs {
			fmt.Fprintf(w, "    %v\n", e)
		}
		return &unknownPlugin{"Validation failed"}
	}
	cat := builtin.Catalog()
	_, err := fmt.Fprintf(w, "(OK) Endpoints (%d)\n(OK) Catalogue (%d plugins in %d categories)\n\nAll checks passed\n",
		len(builtin.EndpointOrder()), cat.Len(), len(cat.Categories()))
	return err
}
