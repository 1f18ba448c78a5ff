package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the column at which help text wraps. It is fixed, not the
// terminal width, so help output is the same everywhere (and golden-
// testable).
const helpWidth = 100

// helpIndent indents a flag's description under its names.
const helpIndent = "      "

// groupedHelp writes a command's help in AIPerf's layout: usage, the long
// description, then one section per flag group (groups in the given
// order, then any group not in the list, in the order of its first flag),
// each flag as a line with all its names and its value placeholder,
// followed by its wrapped description with choices and default. Flags
// without a group (cobra's --help) go to a final "Other" section.
func groupedHelp(w io.Writer, cmd *cobra.Command, groups []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n  %s [flags]\n\n", cmd.CommandPath())
	if cmd.Long != "" {
		b.WriteString(strings.TrimRight(cmd.Long, "\n"))
		b.WriteString("\n")
	}
	byGroup := map[string][]*pflag.Flag{}
	order := slices.Clone(groups)
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		g := "Other"
		if v := f.Annotations[annGroup]; len(v) == 1 {
			g = v[0]
		}
		if g != "Other" && !slices.Contains(order, g) {
			order = append(order, g) // a group the list does not know yet
		}
		byGroup[g] = append(byGroup[g], f)
	})
	for _, g := range append(order, "Other") {
		flags := byGroup[g]
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", g)
		for _, f := range flags {
			writeFlagHelp(&b, f)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFlagHelp writes one flag: its names line and its description.
func writeFlagHelp(b *strings.Builder, f *pflag.Flag) {
	var names []string
	if f.Shorthand != "" {
		names = append(names, "-"+f.Shorthand)
	}
	var long []string
	for _, a := range f.Annotations[annAliases] {
		if strings.HasPrefix(a, "--") {
			long = append(long, a)
		} else {
			names = append(names, a)
		}
	}
	names = append(names, "--"+f.Name)
	names = append(names, long...)
	line := "  " + strings.Join(names, ", ")
	if m := f.Annotations[annMeta]; len(m) == 1 {
		line += " " + m[0]
	}
	b.WriteString(line)
	b.WriteString("\n")

	desc := f.Usage
	if c := f.Annotations[annChoices]; len(c) > 0 {
		desc += " [choices: " + strings.Join(c, ", ") + "]"
	}
	if f.DefValue != "" && f.NoOptDefVal == "" {
		desc += " [default: " + f.DefValue + "]"
	}
	for _, l := range wrap(desc, helpWidth-len(helpIndent)) {
		b.WriteString(helpIndent)
		b.WriteString(l)
		b.WriteString("\n")
	}
}

// wrap breaks text into lines of at most width bytes at spaces (a longer
// word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
