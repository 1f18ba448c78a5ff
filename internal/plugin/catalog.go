package plugin

import (
	"fmt"
	"strings"
)

// Category is a kind of plugin, as a category of AIPerf's categories.yaml:
// endpoint, custom_dataset_loader, arrival_pattern, data_exporter, ...
type Category struct {
	// Name is the snake_case category name (AIPerf's); `aiperf plugins`
	// also accepts it with hyphens.
	Name string
	// Description says what the category's plugins do and how many of
	// them a run uses.
	Description string
}

// Title is the display name: snake_case to Title Case, with AIPerf's
// acronyms upper-cased ("url_selection_strategy" is "URL Selection
// Strategy").
func (c Category) Title() string {
	words := strings.Split(c.Name, "_")
	for i, w := range words {
		switch w {
		case "ui", "api", "gpu", "cpu", "http", "zmq", "csv", "json", "hf", "tei", "url", "llm", "sla":
			words[i] = strings.ToUpper(w)
		default:
			if w != "" {
				words[i] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
	}
	return strings.Join(words, " ")
}

// Field is one metadata fact of a plugin, for display.
type Field struct {
	Name, Value string
}

// Entry is one plugin compiled into the binary.
type Entry struct {
	Category    string
	Name        string
	Description string
	// Metadata are the plugin's facts in display order: an endpoint's path
	// and capabilities, a loader's preferred sampling, ...
	Metadata []Field
}

// Catalog lists every plugin compiled into the binary by category, for
// `aiperf plugins`. It is built once by internal/builtin, where each
// category's entries are listed explicitly, and only read afterwards.
type Catalog struct {
	cats    []Category
	entries map[string][]Entry
}

// Add appends a category and its entries (an empty category is kept out
// of listings). A category or entry name used twice, an empty name, or an
// entry of another category is an error.
func (c *Catalog) Add(cat Category, entries ...Entry) error {
	if cat.Name == "" {
		return fmt.Errorf("plugin catalog: empty category name")
	}
	if c.entries == nil {
		c.entries = map[string][]Entry{}
	}
	if _, dup := c.entries[cat.Name]; dup {
		return fmt.Errorf("plugin catalog: category %q added twice", cat.Name)
	}
	seen := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.Category == "" {
			e.Category = cat.Name
		}
		switch {
		case e.Name == "":
			return fmt.Errorf("plugin catalog: %s entry %d has no name", cat.Name, i)
		case e.Category != cat.Name:
			return fmt.Errorf("plugin catalog: entry %q of category %q listed under %q", e.Name, e.Category, cat.Name)
		case seen[e.Name]:
			return fmt.Errorf("plugin catalog: %s plugin %q listed twice", cat.Name, e.Name)
		}
		seen[e.Name] = true
	}
	c.cats = append(c.cats, cat)
	c.entries[cat.Name] = entries
	return nil
}

// Categories returns the categories that have entries, in the order they
// were added.
func (c *Catalog) Categories() []Category {
	out := make([]Category, 0, len(c.cats))
	for _, cat := range c.cats {
		if len(c.entries[cat.Name]) > 0 {
			out = append(out, cat)
		}
	}
	return out
}

// Category returns the category named name (snake_case or with hyphens,
// any case).
func (c *Catalog) Category(name string) (Category, bool) {
	key := canonical(name)
	for _, cat := range c.cats {
		if cat.Name == key && len(c.entries[cat.Name]) > 0 {
			return cat, true
		}
	}
	return Category{}, false
}

// Entries returns a category's entries in order.
func (c *Catalog) Entries(category string) []Entry {
	return c.entries[canonical(category)]
}

// Entry returns one plugin; the error lists what the category has.
func (c *Catalog) Entry(category, name string) (Entry, error) {
	cat, ok := c.Category(category)
	if !ok {
		return Entry{}, fmt.Errorf("unknown plugin category %q", category)
	}
	var names []string
	for _, e := range c.entries[cat.Name] {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Entry{}, fmt.Errorf("no %s plugin %q (available: %s)", cat.Name, name, strings.Join(names, ", "))
}

// Len returns the number of plugins.
func (c *Catalog) Len() int {
	n := 0
	for _, es := range c.entries {
		n += len(es)
	}
	return n
}

func canonical(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
}
