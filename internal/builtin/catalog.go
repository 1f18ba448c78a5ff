package builtin

import (
	"errors"
	"fmt"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// Catalog returns the `aiperf plugins` catalogue: every plugin compiled
// into the binary, by category, in AIPerf's category order. This list is
// the one place that names the categories; each category's entries are
// listed in its own function, one per area, so that adding a plugin means
// adding its entry there:
//
//	catalog_endpoint.go  endpoint, transport, url_selection_strategy
//	catalog_dataset.go   dataset_composer, custom/public_dataset_loader, dataset_sampler
//	catalog_timing.go    timing_strategy, arrival_pattern, ramp
//	catalog_output.go    record_processor, accumulator, data/console/stream exporters, ui, plot
//	catalog_search.go    search_planner, search_recipe, convergence_criterion
//	catalog_accuracy.go  accuracy_benchmark, accuracy_grader
//
// A category without entries is not listed.
func Catalog() *plugin.Catalog {
	c := &plugin.Catalog{}
	for _, cat := range []struct {
		plugin.Category
		entries []plugin.Entry
	}{
		{categoryEndpoint, endpointEntries()},
		{categoryTransport, transportEntries()},
		{categoryURLSelection, urlSelectionEntries()},
		{categoryDatasetComposer, datasetComposerEntries()},
		{categoryCustomDatasetLoader, customDatasetLoaderEntries()},
		{categoryPublicDatasetLoader, publicDatasetLoaderEntries()},
		{categoryDatasetSampler, datasetSamplerEntries()},
		{categoryTimingStrategy, timingStrategyEntries()},
		{categoryArrivalPattern, arrivalPatternEntries()},
		{categoryRamp, rampEntries()},
		{categoryRecordProcessor, recordProcessorEntries()},
		{categoryAccumulator, accumulatorEntries()},
		{categoryDataExporter, dataExporterEntries()},
		{categoryConsoleExporter, consoleExporterEntries()},
		{categoryStreamExporter, streamExporterEntries()},
		{categoryUI, uiEntries()},
		{categoryPlot, plotEntries()},
		{categorySearchPlanner, searchPlannerEntries()},
		{categorySearchRecipe, searchRecipeEntries()},
		{categoryConvergence, convergenceEntries()},
		{categoryPostProcess, postProcessEntries()},
		{categoryAccuracyBenchmark, accuracyBenchmarkEntries()},
		{categoryAccuracyGrader, accuracyGraderEntries()},
		{categoryAPIRouter, apiRouterEntries()},
	} {
		must(c.Add(cat.Category, cat.entries...))
	}
	return c
}

// entry is a catalogue entry without metadata.
func entry(name, description string) plugin.Entry {
	return plugin.Entry{Name: name, Description: description}
}

// Validate checks the registries against the catalogue: every endpoint can
// be built (the template endpoint with a named template), reports the
// metadata it was registered with, and is listed. It returns every
// problem (`aiperf plugins --validate`).
func Validate() []error {
	reg := New()
	cat := Catalog()
	var errs []error
	for _, name := range reg.Endpoints.Names() {
		p, _ := reg.Endpoints.Lookup(name)
		e, err := p.New(endpoint.Settings{Extra: []endpoint.ExtraInput{{Key: "payload_template", Value: []byte(`"nv-embedqa"`)}}})
		switch {
		case err != nil:
		case e.Metadata() != p.Meta:
			err = errors.New("the built endpoint's metadata differs from the registered metadata")
		default:
			_, err = cat.Entry("endpoint", name)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("endpoint:%s - %w", name, err))
		}
	}
	return errs
}
