// Package export writes a benchmark's results in AIPerf 0.13's formats, so
// that tooling built for AIPerf (plot scripts, dashboards, CI checks) reads
// our artifacts unchanged:
//
//   - profile_export_aiperf.json: the run summary (SummaryJSON);
//   - profile_export_aiperf.csv: the same summary as two CSV sections (SummaryCSV);
//   - profile_export.jsonl: one line per request, streamed (RecordWriter);
//   - profile_export_raw.jsonl: request payload and raw response chunks (RawWriter);
//   - inputs.json: the request bodies that were sent (WriteInputs);
//   - the end-of-run console tables and notes (Console).
//
// Paths decides the file names (including --profile-export-prefix) and which
// files an export level produces.
//
// Every number that reaches an artifact is finite: non-finite values are
// dropped at this boundary, whatever the metrics package hands over; the
// policy and the only float writers are in finite.go.
// Numbers are spelled the way AIPerf's Python spells them (10.0, not 10), so
// that byte-level comparisons against AIPerf artifacts only differ in values.
package export
