package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// groundTruthMain joins the mock's request record with the client's
// profile_export.jsonl and prints the client's measurement errors.
func groundTruthMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("groundtruth", flag.ContinueOnError)
	server := fs.String("server", "", "the mock server's --record-requests file")
	client := fs.String("client", "", "the client's profile_export.jsonl")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server == "" || *client == "" {
		return errors.New("groundtruth: -server and -client are required")
	}
	srv, err := readServerRecord(*server)
	if err != nil {
		return err
	}
	cli, err := readClientRecords(*client)
	if err != nil {
		return err
	}
	rep := joinGroundTruth(srv, cli)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.print(stdout)
}

// clientRecord is what the ground truth needs from one line of
// profile_export.jsonl: wall-clock stamps and the content-chunk timings,
// all in nanoseconds.
type clientRecord struct {
	RequestID string
	StartNs   int64 // request_start_ns: just before the request was handed to the transport
	AckNs     int64 // request_ack_ns; 0 when absent
	EndNs     int64 // request_end_ns: response fully read
	TTFT      int64 // -1 when absent (non-streaming or no content)
	Latency   int64 // request_latency: last content chunk - start; -1 when absent
	ICL       []int64
	Failed    bool
	// Connecting is http_req_connecting: the connect this request paid
	// inside its TTFT (0 on a reused or pre-opened connection; -1 when the
	// line has no such metric).
	Connecting int64
}

// clientLine is the JSON shape of a profile_export.jsonl line.
type clientLine struct {
	Metadata struct {
		XRequestID     string `json:"x_request_id"`
		RequestStartNs int64  `json:"request_start_ns"`
		RequestAckNs   int64  `json:"request_ack_ns"`
		RequestEndNs   int64  `json:"request_end_ns"`
		WasCancelled   bool   `json:"was_cancelled"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

// unitNanos is how many nanoseconds one unit of a time metric is.
var unitNanos = map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "sec": 1e9, "s": 1e9}

// parseClientLine decodes one profile_export.jsonl line.
func parseClientLine(b []byte) (clientRecord, error) {
	var l clientLine
	if err := json.Unmarshal(b, &l); err != nil {
		return clientRecord{}, err
	}
	r := clientRecord{
		RequestID: l.Metadata.XRequestID,
		StartNs:   l.Metadata.RequestStartNs,
		AckNs:     l.Metadata.RequestAckNs,
		EndNs:     l.Metadata.RequestEndNs,
		TTFT:      -1,
		Latency:   -1,
		Failed:    len(l.Error) > 0 && string(l.Error) != "null" || l.Metadata.WasCancelled,
	}
	scalar := func(tag string) (int64, error) {
		m, ok := l.Metrics[tag]
		if !ok {
			return -1, nil
		}
		var v float64
		if err := json.Unmarshal(m.Value, &v); err != nil {
			return -1, fmt.Errorf("%s: %w", tag, err)
		}
		return toNanos(v, m.Unit, tag)
	}
	var err error
	if r.TTFT, err = scalar("time_to_first_token"); err != nil {
		return r, err
	}
	if r.Latency, err = scalar("request_latency"); err != nil {
		return r, err
	}
	if r.Connecting, err = scalar("http_req_connecting"); err != nil {
		return r, err
	}
	if m, ok := l.Metrics["inter_chunk_latency"]; ok {
		var vs []float64
		if err := json.Unmarshal(m.Value, &vs); err != nil {
			return r, fmt.Errorf("inter_chunk_latency: %w", err)
		}
		for _, v := range vs {
			ns, err := toNanos(v, m.Unit, "inter_chunk_latency")
			if err != nil {
				return r, err
			}
			r.ICL = append(r.ICL, ns)
		}
	}
	return r, nil
}

// toNanos converts a time value in unit to whole nanoseconds.
func toNanos(v float64, unit, tag string) (int64, error) {
	k, ok := unitNanos[unit]
	if !ok {
		return -1, fmt.Errorf("%s: unknown time unit %q", tag, unit)
	}
	ns := math.Round(v * k)
	if math.IsNaN(ns) || math.Abs(ns) > math.MaxInt64/2 {
		return -1, fmt.Errorf("%s: %v %s is out of range", tag, v, unit)
	}
	return int64(ns), nil
}

// readClientRecords reads a whole profile_export.jsonl.
func readClientRecords(path string) ([]clientRecord, error) {
	var out []clientRecord
	err := eachLine(path, func(n int, b []byte) error {
		r, err := parseClientLine(b)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// readServerRecord reads a whole --record-requests file.
func readServerRecord(path string) ([]mockserver.RecordedRequest, error) {
	var out []mockserver.RecordedRequest
	err := eachLine(path, func(n int, b []byte) error {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// eachLine calls fn for every non-empty line of a file (1-based numbers).
func eachLine(path string, fn func(n int, b []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Series names, in report order. The first three are the errors of the
// metrics a user reads; the rest split them into one-way legs.
const (
	seriesTTFT    = "ttft"
	seriesTTFTNet = "ttft_excl_connect" // TTFT - http_req_connecting - server TTFT
	seriesGap     = "inter_chunk_gap"
	seriesLatency = "request_latency"
	seriesSend    = "leg_request"     // server receipt - client send
	seriesAck     = "leg_headers"     // client headers - server headers flushed
	seriesFirst   = "leg_first_chunk" // client first content chunk - server write
	seriesLast    = "leg_last_chunk"  // client last content chunk - server write
	seriesEnd     = "leg_end"         // client end of response - server end
)

// seriesInfo describes each series for the text report.
var seriesInfo = []struct{ name, label string }{
	{seriesTTFT, "TTFT error (client TTFT - server TTFT)"},
	{seriesTTFTNet, "TTFT - http_req_connecting error"},
	{seriesGap, "inter-chunk gap error (per gap)"},
	{seriesLatency, "request latency error"},
	{seriesSend, "leg: server receipt - client send"},
	{seriesAck, "leg: client headers - server headers"},
	{seriesFirst, "leg: client 1st chunk - server write"},
	{seriesLast, "leg: client last chunk - server write"},
	{seriesEnd, "leg: client end - server end"},
}

// errorStats summarizes one series in microseconds.
type errorStats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean_us"`
	Min   float64 `json:"min_us"`
	P50   float64 `json:"p50_us"`
	P90   float64 `json:"p90_us"`
	P99   float64 `json:"p99_us"`
	Max   float64 `json:"max_us"`
}

// groundTruthReport is the result of a join.
type groundTruthReport struct {
	Joined          int `json:"joined"`
	ClientUnmatched int `json:"client_unmatched"` // client lines with no server line
	ServerUnmatched int `json:"server_unmatched"` // server lines (inference) with no client line
	Failed          int `json:"failed_skipped"`   // failed or cancelled on the client side
	// ChunkMismatch counts joined requests whose client content-chunk
	// count differs from the server's token chunks; their per-chunk
	// series are skipped (TTFT and latency still count).
	ChunkMismatch int `json:"chunk_count_mismatch"`
	// Connected counts joined requests that opened their own connection
	// (http_req_connecting > 0): their TTFT includes a TCP handshake.
	Connected int                   `json:"connected"`
	Series    map[string]errorStats `json:"series"`
}

// joinGroundTruth matches client and server by request id and measures,
// per request, how far each client-side number is from the server's.
//
// Client content-chunk times are rebuilt as start + TTFT, then each
// inter-chunk gap in turn; the server's content chunks are its "token"
// chunks (or its one "body" chunk for a non-streamed answer). Errors are
// client minus server, so a positive error means the client saw the event
// later, or a duration longer, than the server produced it.
func joinGroundTruth(server []mockserver.RecordedRequest, client []clientRecord) groundTruthReport {
	byID := make(map[string]*mockserver.RecordedRequest, len(server))
	for i := range server {
		s := &server[i]
		if s.RequestID == "" || s.Method != "POST" {
			continue
		}
		byID[s.RequestID] = s
	}
	series := map[string][]float64{}
	add := func(name string, ns int64) { series[name] = append(series[name], float64(ns)/1e3) }
	var rep groundTruthReport
	for i := range client {
		c := &client[i]
		s, ok := byID[c.RequestID]
		if !ok {
			rep.ClientUnmatched++
			continue
		}
		delete(byID, c.RequestID)
		if c.Failed || s.Status != 200 {
			rep.Failed++
			continue
		}
		rep.Joined++
		content := contentTimes(s)
		add(seriesSend, s.ReceivedNs-c.StartNs)
		if c.AckNs > 0 && s.HeadersNs > 0 {
			add(seriesAck, c.AckNs-s.HeadersNs)
		}
		add(seriesEnd, c.EndNs-s.EndNs)
		if len(content) == 0 {
			continue
		}
		last := content[len(content)-1]
		if c.Latency >= 0 {
			add(seriesLatency, c.Latency-(last-s.ReceivedNs))
			add(seriesLast, c.StartNs+c.Latency-last)
		}
		if c.TTFT < 0 {
			continue
		}
		add(seriesTTFT, c.TTFT-(content[0]-s.ReceivedNs))
		if c.Connecting >= 0 {
			add(seriesTTFTNet, c.TTFT-c.Connecting-(content[0]-s.ReceivedNs))
			if c.Connecting > 0 {
				rep.Connected++
			}
		}
		add(seriesFirst, c.StartNs+c.TTFT-content[0])
		if len(c.ICL) != len(content)-1 {
			rep.ChunkMismatch++
			continue
		}
		for j, g := range c.ICL {
			add(seriesGap, g-(content[j+1]-content[j]))
		}
	}
	rep.ServerUnmatched = len(byID)
	rep.Series = make(map[string]errorStats, len(series))
	for name, vs := range series {
		sum := stats.Summarize(vs)
		rep.Series[name] = errorStats{
			Count: sum.Count, Mean: sum.Avg, Min: sum.Min,
			P50: sum.P50, P90: sum.P90, P99: sum.P99, Max: sum.Max,
		}
	}
	return rep
}

// contentTimes returns when the server began writing each content chunk
// of s: its token chunks, or its one body chunk when it streamed none. The
// write start, not the flush return, is the reference because a client
// cannot see a chunk before it, while a descheduled server goroutine may
// stamp its flush after the client has already read the bytes.
func contentTimes(s *mockserver.RecordedRequest) []int64 {
	var out []int64
	for _, kind := range []string{"token", "body"} {
		for _, ch := range s.Chunks {
			if ch.Kind == kind {
				out = append(out, cmp.Or(ch.WriteNs, ch.Ns))
			}
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}

// print writes the report as a table in microseconds.
func (r groundTruthReport) print(w io.Writer) error {
	fmt.Fprintf(w, "joined %d requests (client unmatched %d, server unmatched %d, failed skipped %d, chunk-count mismatch %d; %d opened a connection)\n",
		r.Joined, r.ClientUnmatched, r.ServerUnmatched, r.Failed, r.ChunkMismatch, r.Connected)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client minus server, µs\tcount\tp50\tp90\tp99\tmax\tmean\tmin\t")
	for _, s := range seriesInfo {
		st, ok := r.Series[s.name]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n",
			s.label, st.Count, st.P50, st.P90, st.P99, st.Max, st.Mean, st.Min)
	}
	return tw.Flush()
}
