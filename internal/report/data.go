package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/results"
)

// Request is one profiling request of profile_export.jsonl: its wall-clock
// bounds (Unix ns) and its scalar metrics in display units.
type Request struct {
	StartNs, EndNs int64
	Session        string
	Turn           int
	Failed         bool
	ErrorType      string
	Metrics        map[string]float64
}

// Metric returns a scalar metric, NaN when the request lacks it.
func (q *Request) Metric(tag string) float64 {
	if v, ok := q.Metrics[tag]; ok {
		return v
	}
	return math.NaN()
}

// readRequests reads the profiling records of a JSONL export. A list
// metric (inter_chunk_latency) keeps its mean, as AIPerf's plot does.
func readRequests(path string) ([]Request, error) {
	var out []Request
	err := results.ReadRecords(path, func(r *results.Record) error {
		if r.Phase != "" && r.Phase != "profiling" {
			return nil
		}
		q := Request{
			StartNs: r.Meta.StartNs, EndNs: r.Meta.EndNs, Session: r.Meta.ConversationID, Turn: r.Meta.TurnIndex,
			Failed: r.Failed, ErrorType: r.Meta.ErrorType, Metrics: make(map[string]float64, len(r.Metrics)),
		}
		for tag, v := range r.Metrics {
			switch {
			case !v.IsList:
				q.Metrics[tag] = v.Scalar
			case len(v.List) > 0:
				s := 0.0
				for _, x := range v.List {
					s += x
				}
				q.Metrics[tag] = s / float64(len(v.List))
			}
		}
		out = append(out, q)
		return nil
	})
	return out, err
}

// Timeslices are the timeslice metrics of a run in AIPerf's tidy layout.
type Timeslices struct {
	// Starts and Ends are each slice's wall-clock bounds (Unix ns).
	Starts, Ends []int64
	// Values maps "<Metric header>" then stat to one value per slice (NaN
	// where a slice lacks it).
	Values map[string]map[string][]float64
	// Units are the metrics' display units, by header.
	Units map[string]string
}

// Duration is the slices' nominal width in seconds (the first slice's).
func (t *Timeslices) Duration() float64 {
	if len(t.Starts) == 0 {
		return 0
	}
	return float64(t.Ends[0]-t.Starts[0]) / 1e9
}

// readTimeslices reads profile_export_aiperf_timeslices.csv, AIPerf
// 0.13's "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value" or the older
// "Timeslice,Metric,Unit,Stat,Value"; nil when the run has none.
func readTimeslices(dir string) (*Timeslices, error) {
	path := filepath.Join(dir, timeslicesCSVName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"Timeslice", "Metric", "Stat", "Value"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: header %q lacks %s", path, strings.Join(header, ","), need)
		}
	}
	ts := &Timeslices{Values: map[string]map[string][]float64{}, Units: map[string]string{}}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		idx, err := strconv.Atoi(get("Timeslice"))
		if err != nil || idx < 0 || idx > 1_000_000 {
			return nil, fmt.Errorf("%s:%d: bad Timeslice %q", path, line, get("Timeslice"))
		}
		v, err := strconv.ParseFloat(get("Value"), 64)
		if err != nil {
			continue // an empty or N/A cell
		}
		for len(ts.Starts) <= idx {
			ts.Starts, ts.Ends = append(ts.Starts, 0), append(ts.Ends, 0)
		}
		if s, err := strconv.ParseInt(get("Start_NS"), 10, 64); err == nil {
			ts.Starts[idx] = s
		}
		if e, err := strconv.ParseInt(get("End_NS"), 10, 64); err == nil {
			ts.Ends[idx] = e
		}
		metric, stat := get("Metric"), get("Stat")
		if ts.Values[metric] == nil {
			ts.Values[metric] = map[string][]float64{}
			ts.Units[metric] = get("Unit")
		}
		vals := ts.Values[metric][stat]
		for len(vals) <= idx {
			vals = append(vals, math.NaN())
		}
		vals[idx] = v
		ts.Values[metric][stat] = vals
	}
	n := len(ts.Starts)
	for _, byStat := range ts.Values {
		for stat, vals := range byStat {
			for len(vals) < n {
				vals = append(vals, math.NaN())
			}
			byStat[stat] = vals
		}
	}
	if n == 0 {
		return nil, nil
	}
	return ts, nil
}

// GPUSample is one GPU telemetry line: when, which GPU, and its metrics.
type GPUSample struct {
	TimestampNs int64
	Key         string // the GPU's identity: URL and UUID (or index)
	Metrics     map[string]float64
	// Simulated: the GPU does not exist (the mock server's fake DCGM
	// exporter); charts of its figures say so in their title.
	Simulated bool
}

// readGPUTelemetry reads gpu_telemetry_export.jsonl (AIPerf's shape:
// timestamp_ns, gpu_uuid, gpu_index, telemetry_source_url,
// telemetry_data{nvidia_gpu_utilization, ...}).
func readGPUTelemetry(path string) ([]GPUSample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []GPUSample
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var l struct {
			TimestampNs int64               `json:"timestamp_ns"`
			UUID        string              `json:"gpu_uuid"`
			Index       int                 `json:"gpu_index"`
			URL         string              `json:"telemetry_source_url"`
			Data        map[string]*float64 `json:"telemetry_data"`
			Simulated   bool                `json:"simulated"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		s := GPUSample{TimestampNs: l.TimestampNs, Key: l.URL + "|" + cmpOr(l.UUID, strconv.Itoa(l.Index)), Metrics: map[string]float64{}, Simulated: l.Simulated}
		for k, v := range l.Data {
			if v != nil {
				s.Metrics[k] = *v
			}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	slices.SortStableFunc(out, func(a, b GPUSample) int { return int(a.TimestampNs - b.TimestampNs) })
	return out, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
