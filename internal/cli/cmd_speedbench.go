package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
)

// SPEED-Bench report: one `aiperf profile` per SPEED-Bench (or spec_al_*)
// category, then a model x category matrix of the speculative-decoding
// acceptance length, acceptance rate or output throughput, as AIPerf's
// speed-bench-report writes it.
var (
	sbQualitative = []string{"coding", "humanities", "math", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization", "writing"}
	sbTiers       = []string{"low_entropy", "mixed", "high_entropy"}
	sbSpecAL      = []string{"gsm8k", "math500", "mtbench", "humaneval", "mbpp"}
	sbPrefixes    = []string{"speed_bench_", "spec_al_"}
	sbLength      = []string{"sglang:spec_accept_length", "vllm:spec_decode_mean_accepted_length", "trtllm:spec_accept_length"}
	sbRate        = []string{"sglang:spec_accept_rate", "vllm:spec_decode_draft_acceptance_rate", "trtllm:spec_accept_rate"}
)

func newSpeedBenchCommand(env *Env) *cobra.Command {
	var paths []string
	var output, format, metric string
	cmd := &cobra.Command{
		Use:   "speed-bench-report [PATHS...]",
		Short: "Matrix of speculative-decoding acceptance per SPEED-Bench category",
		Long: `Assemble SPEED-Bench runs (one aiperf profile per category, with
--custom-dataset-type speed_bench_<category> or --public-dataset spec_al_<name>)
into a model x category matrix of the acceptance length (from the server's
spec-decode metrics in server_metrics_export.json), the acceptance rate, or the
output token throughput, with an Overall column (the mean).

Examples:
  aiperf speed-bench-report artifacts/
  aiperf speed-bench-report run-a run-b --metric accept_rate --format table

Exit codes: 0 report written; 1 no SPEED-Bench result found; 2 bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			all := append(append([]string{}, args...), paths...)
			if len(all) == 0 {
				all = []string{"artifacts"}
			}
			if !slices.Contains([]string{"accept_length", "accept_rate", "throughput"}, metric) {
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--metric: invalid choice %q (choose from accept_length, accept_rate, throughput)", metric)}
			}
			if !slices.Contains([]string{"csv", "table", "both"}, format) {
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--format: invalid choice %q (choose from csv, table, both)", format)}
			}
			if err := speedBenchReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), all, output, format, metric); err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&paths, "paths", nil, "Run directories or directories holding runs (also as arguments); default ./artifacts.")
	fs.StringVarP(&output, "output", "o", "speed_bench_report.csv", "CSV file to write.")
	fs.StringVar(&format, "format", "both", "csv, table or both.")
	fs.StringVar(&metric, "metric", "accept_length", "accept_length, accept_rate or throughput.")
	_ = env
	return cmd
}

const sbProfile, sbServer = "profile_export_aiperf.json", "server_metrics_export.json"

func speedBenchReport(out, warn io.Writer, paths []string, output, format, metric string) error {
	dirs := sbRunDirs(warn, paths)
	if len(dirs) == 0 {
		return errors.New("no aiperf run directories found")
	}
	fmt.Fprintf(out, "Found %d run directories.\n", len(dirs))
	res := map[string]map[string]*float64{}
	for _, d := range dirs {
		sbReadRun(warn, d, metric, res)
	}
	if !sbAnyResult(res) {
		return errors.New("no SPEED-Bench results could be extracted")
	}
	cols := sbColumns(res)
	if format != "table" {
		if err := sbCSV(output, res, cols); err != nil {
			return err
		}
		fmt.Fprintf(out, "CSV written to %s\n", output)
	}
	if format != "csv" {
		sbTable(out, res, cols, metric)
	}
	return nil
}

func readJSON(p string, v any) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

var sbFlagRE = regexp.MustCompile(`--(?:custom-dataset-type|custom_dataset_type|public-dataset|public_dataset|dataset-type)[ =]'?([a-z0-9_]+)`)

// sbCategory is the SPEED-Bench category of a run: input_config's
// datasets[].format or .dataset (AIPerf's), else the dataset flag of its
// command line.
func sbCategory(prof map[string]any) string {
	var names []string
	if ic, ok := prof["input_config"].(map[string]any); ok {
		ds, _ := ic["datasets"].([]any)
		for _, d := range ds {
			m, _ := d.(map[string]any)
			for _, k := range []string{"format", "dataset"} {
				if s, ok := m[k].(string); ok {
					names = append(names, s)
				}
			}
		}
	}
	if ri, ok := prof["run_info"].(map[string]any); ok {
		if cli, ok := ri["cli_command"].(string); ok {
			for _, m := range sbFlagRE.FindAllStringSubmatch(cli, -1) {
				names = append(names, m[1])
			}
		}
	}
	for _, n := range names {
		for _, p := range sbPrefixes {
			if strings.HasPrefix(n, p) {
				return strings.TrimPrefix(n, p)
			}
		}
	}
	return ""
}

func sbModel(prof map[string]any) string {
	ic, _ := prof["input_config"].(map[string]any)
	models, _ := ic["models"].(map[string]any)
	items, _ := models["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			if n, ok := m["name"].(string); ok && n != "" {
				return n
			}
		}
	}
	return "unknown"
}

func statOf(v any, stat string) *float64 {
	m, _ := v.(map[string]any)
	if f, ok := m[stat].(float64); ok {
		return &f
	}
	return nil
}

// seriesStat is a server metric's first series' statistic.
func seriesStat(ms map[string]any, name, stat string) *float64 {
	m, _ := ms[name].(map[string]any)
	series, _ := m["series"].([]any)
	if len(series) == 0 {
		return nil
	}
	s, _ := series[0].(map[string]any)
	return statOf(s["stats"], stat)
}

// acceptance extracts the acceptance length or rate from server
// metrics: the engines' gauges, else vLLM's counters.
func acceptance(ms map[string]any, metric string) *float64 {
	names := sbLength
	if metric == "accept_rate" {
		names = sbRate
	}
	for _, n := range names {
		if v := seriesStat(ms, n, "avg"); v != nil {
			return v
		}
	}
	acc := seriesStat(ms, "vllm:spec_decode_num_accepted_tokens", "total")
	if metric == "accept_rate" {
		if d := seriesStat(ms, "vllm:spec_decode_num_draft_tokens", "total"); acc != nil && d != nil && *d > 0 {
			v := *acc / *d
			return &v
		}
		return nil
	}
	if d := seriesStat(ms, "vllm:spec_decode_num_drafts", "total"); acc != nil && d != nil && *d > 0 {
		v := *acc / *d + 1
		return &v
	}
	keys := make([]string, 0, len(ms))
	for k := range ms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		l := strings.ToLower(k)
		if strings.Contains(l, "spec") && strings.Contains(l, "accept") && strings.Contains(l, "length") {
			if v := seriesStat(ms, k, "avg"); v != nil {
				return v
			}
		}
	}
	return nil
}

func sbColumns(res map[string]map[string]*float64) []string {
	all := map[string]bool{}
	for _, m := range res {
		for c := range m {
			all[c] = true
		}
	}
	for _, set := range [][]string{sbQualitative, sbTiers, sbSpecAL} {
		sub := true
		for c := range all {
			sub = sub && slices.Contains(set, c)
		}
		if sub {
			var out []string
			for _, c := range set {
				if all[c] {
					out = append(out, c)
				}
			}
			return out
		}
	}
	out := make([]string, 0, len(all))
	for c := range all {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// sbRows are the matrix rows, models sorted, with the Overall mean.
func sbRows(res map[string]map[string]*float64, cols []string, missing string) [][]string {
	models := make([]string, 0, len(res))
	for m := range res {
		models = append(models, m)
	}
	slices.Sort(models)
	var rows [][]string
	for _, m := range models {
		row := []string{m}
		sum, n := 0.0, 0
		for _, c := range cols {
			if v := res[m][c]; v != nil {
				row = append(row, fmt.Sprintf("%.2f", *v))
				sum += *v
				n++
			} else {
				row = append(row, missing)
			}
		}
		if n > 0 {
			row = append(row, fmt.Sprintf("%.2f", sum/float64(n)))
		} else {
			row = append(row, missing)
		}
		rows = append(rows, row)
	}
	return rows
}

func sbCSV(path string, res map[string]map[string]*float64, cols []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(append(append([]string{"Model"}, cols...), "Overall"))
	w.WriteAll(sbRows(res, cols, ""))
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func sbTable(out io.Writer, res map[string]map[string]*float64, cols []string, metric string) {
	title := map[string]string{"accept_length": "Acceptance Length Report", "accept_rate": "Acceptance Rate Report", "throughput": "Throughput Report (tokens/sec)"}[metric]
	header := append(append([]string{"Model"}, cols...), "Overall")
	rows := sbRows(res, cols, "-")
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = max(len(h), 8)
	}
	for _, r := range rows {
		widths[0] = max(widths[0], len(r[0]))
	}
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = fmt.Sprintf("%*s", widths[i], c)
		}
		fmt.Fprintln(out, strings.Join(parts, "  "))
	}
	fmt.Fprintln(out, title)
	line(header)
	dashes := make([]string, len(header))
	for i, w := range widths {
		dashes[i] = strings.Repeat("-", w)
	}
	line(dashes)
	for _, r := range rows {
		line(r)
	}
}

// sbRunDirs is the run directories among paths: each path that holds a
// profile export, else its subdirectories that do.
func sbRunDirs(warn io.Writer, paths []string) []string {
	var dirs []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			fmt.Fprintf(warn, "Warning: %s is not a directory, skipping\n", p)
			continue
		}
		if _, err := os.Stat(filepath.Join(p, sbProfile)); err == nil {
			dirs = append(dirs, p)
			continue
		}
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(p, e.Name(), sbProfile)); e.IsDir() && err == nil {
				dirs = append(dirs, filepath.Join(p, e.Name()))
			}
		}
	}
	return dirs
}

// sbReadRun records run directory d's metric in res[model][category]
// (nil when its server metrics are missing); a run that cannot be placed
// is skipped with a warning.
func sbReadRun(warn io.Writer, d, metric string, res map[string]map[string]*float64) {
	var prof map[string]any
	if err := readJSON(filepath.Join(d, sbProfile), &prof); err != nil {
		fmt.Fprintf(warn, "Warning: %v, skipping\n", err)
		return
	}
	cat := sbCategory(prof)
	if cat == "" {
		fmt.Fprintf(warn, "Warning: cannot determine category from %s, skipping\n", d)
		return
	}
	model := sbModel(prof)
	if res[model] == nil {
		res[model] = map[string]*float64{}
	}
	var v *float64
	if metric == "throughput" {
		v = statOf(prof["output_token_throughput"], "avg")
	} else {
		var sm map[string]any
		if err := readJSON(filepath.Join(d, sbServer), &sm); err != nil {
			fmt.Fprintf(warn, "Warning: no %s in %s\n", sbServer, d)
		} else {
			ms, _ := sm["metrics"].(map[string]any)
			v = acceptance(ms, metric)
		}
	}
	res[model][cat] = v
}

// sbAnyResult is whether any run gave a value.
func sbAnyResult(res map[string]map[string]*float64) bool {
	for _, m := range res {
		for _, v := range m {
			if v != nil {
				return true
			}
		}
	}
	return false
}
