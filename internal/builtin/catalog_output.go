package builtin

import "github.com/aiperf-go/aiperf/internal/plugin"

// Record processing and output categories.
var (
	categoryRecordProcessor = plugin.Category{Name: "record_processor", Description: "Record processors turn each " +
		"response into per-record metric values."}
	categoryAccumulator = plugin.Category{Name: "accumulator", Description: "Accumulators gather processed records " +
		"into the run's results."}
	categoryDataExporter = plugin.Category{Name: "data_exporter", Description: "Data exporters write the run's results " +
		"to files. All that apply run."}
	categoryConsoleExporter = plugin.Category{Name: "console_exporter", Description: "Console exporters print the " +
		"results' tables. All that apply run."}
	categoryStreamExporter = plugin.Category{Name: "stream_exporter", Description: "Stream exporters write records as " +
		"they complete."}
	categoryUI   = plugin.Category{Name: "ui", Description: "The progress display while a run goes (--ui-type). One per run."}
	categoryPlot = plugin.Category{Name: "plot", Description: "Plot types of aiperf plot."}
)

func recordProcessorEntries() []plugin.Entry {
	return append([]plugin.Entry{entry("metric_record", "Parses each response with the endpoint, counts tokens and computes the record metrics.")}, integrationEntries("record_processor")...)
}

func accumulatorEntries() []plugin.Entry {
	return append([]plugin.Entry{entry("metric_results", "Column store of every record's metrics; numpy-linear percentiles and the derived metrics.")}, integrationEntries("accumulator")...)
}

func dataExporterEntries() []plugin.Entry {
	return append([]plugin.Entry{
		entry("csv", "profile_export_aiperf.csv: the summary as CSV."),
		entry("json", "profile_export_aiperf.json: the summary, the input configuration and the error summary."),
		entry("raw_record_aggregator", "profile_export_raw.jsonl (--export-level raw): requests and responses as sent and received."),
		entry("timeslice_csv", "profile_export_aiperf_timeslices.csv (--slice-duration): every metric per time slice, AIPerf 0.13's tidy rows."),
		entry("timeslice_json", "profile_export_aiperf_timeslices.json (--slice-duration): every metric per time slice with its start_ns and end_ns."),
	}, integrationEntries("data_exporter")...)
}

func consoleExporterEntries() []plugin.Entry {
	return append([]plugin.Entry{
		entry("errors", "The Error Summary table of failed requests by code, type and message."),
		entry("metrics", "The metrics tables, titled by the endpoint's metrics title."),
	}, integrationEntries("console_exporter")...)
}

func streamExporterEntries() []plugin.Entry {
	return append([]plugin.Entry{entry("record_export", "profile_export.jsonl: one line per request as it completes.")}, integrationEntries("stream_exporter")...)
}

func uiEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("dashboard", "The live terminal dashboard: phase progress, rolling latency and throughput, errors, telemetry and logs."),
		entry("none", "No progress display."),
		entry("simple", "A progress line: requests sent and done, errors, rate and schedule lag."),
	}
}

// plotEntries are aiperf plot's plot types (internal/report.Types, which
// the test keeps them in step with).
func plotEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("area", "A filled area of a metric over time (one run)."),
		entry("dual_axis", "Two metrics over time on two y axes (one run)."),
		entry("histogram", "The distribution of a per-request metric (one run)."),
		entry("pareto", "The Pareto frontier of two metrics across runs."),
		entry("percentile_bands", "A metric's percentile bands over time (one run)."),
		entry("request_timeline", "Every request's span on the time axis (one run)."),
		entry("scatter", "Two per-request metrics against each other (one run)."),
		entry("scatter_line", "Two metrics across runs, joined in run order."),
		entry("scatter_with_percentiles", "Per-request values with rolling percentiles over time (one run)."),
		entry("timeslice", "A metric per time slice (--slice-duration; one run)."),
		entry("latency_throughput_uncertainty", "Latency against throughput across runs with confidence ellipses."),
	}
}
