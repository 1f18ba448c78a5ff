package plugin

import (
	"strings"
	"testing"
)

func TestCatalog(t *testing.T) {
	t.Parallel()
	var c Catalog
	if err := c.Add(Category{Name: "arrival_pattern"}, Entry{Name: "poisson"}, Entry{Name: "constant", Metadata: []Field{{"k", "v"}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(Category{Name: "ramp"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		cat     Category
		entries []Entry
		want    string
	}{
		{Category{Name: "ramp"}, nil, "added twice"},
		{Category{}, nil, "empty category"},
		{Category{Name: "x"}, []Entry{{Name: "a"}, {Name: "a"}}, "listed twice"},
		{Category{Name: "y"}, []Entry{{}}, "no name"},
		{Category{Name: "z"}, []Entry{{Name: "a", Category: "other"}}, "listed under"},
	} {
		if err := c.Add(bad.cat, bad.entries...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Add(%+v) = %v; want %q", bad.cat, err, bad.want)
		}
	}
	if got := c.Categories(); len(got) != 1 || got[0].Name != "arrival_pattern" {
		t.Errorf("Categories() = %+v; want the non-empty one only", got)
	}
	if _, ok := c.Category("Arrival-Pattern"); !ok {
		t.Error("Category does not accept hyphens and any case")
	}
	if _, ok := c.Category("ramp"); ok {
		t.Error("an empty category is found")
	}
	e, err := c.Entry("arrival-pattern", "constant")
	if err != nil || e.Category != "arrival_pattern" || len(e.Metadata) != 1 {
		t.Errorf("Entry = %+v, %v", e, err)
	}
	if _, err := c.Entry("arrival_pattern", "gamma"); err == nil || !strings.Contains(err.Error(), "poisson, constant") {
		t.Errorf("Entry(missing) = %v; want the available names", err)
	}
	if c.Len() != 2 {
		t.Errorf("Len() = %d", c.Len())
	}
}

func TestCategoryTitle(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"endpoint": "Endpoint", "url_selection_strategy": "URL Selection Strategy", "ui": "UI",
		"gpu_telemetry_collector": "GPU Telemetry Collector", "custom_dataset_loader": "Custom Dataset Loader",
	} {
		if got := (Category{Name: name}).Title(); got != want {
			t.Errorf("Title(%s) = %q; want %q", name, got, want)
		}
	}
}
