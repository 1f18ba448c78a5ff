package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Value is one metric of one request as profile_export.jsonl writes it:
// a number, or a list of numbers (inter_chunk_latency).
type Value struct {
	Scalar float64
	List   []float64
	IsList bool
	Unit   string
}

// Record is one line of profile_export.jsonl (AIPerf's MetricRecordInfo):
// the request's phase, whether it failed, and its metrics in display
// units.
type Record struct {
	Phase   string // metadata.benchmark_phase: "profiling" or "warmup"
	Failed  bool   // the line carries an error
	Metrics map[string]Value
	// Tags are the metrics' tags in the line's order.
	Tags []string
	Meta RecordMeta
}

// RecordMeta is the request's identity and timing from the line's
// metadata: wall-clock Unix nanoseconds (0 when absent) and ids.
type RecordMeta struct {
	StartNs, AckNs, EndNs, CreditIssuedNs int64
	SessionNum                            int
	ConversationID, XRequestID, WorkerID  string
	TurnIndex                             int
	Cancelled                             bool
	ErrorType                             string // error.type when Failed
}

// Scalar returns the number metric tag holds, if it holds one.
func (r *Record) Scalar(tag string) (float64, bool) {
	v, ok := r.Metrics[tag]
	if !ok || v.IsList {
		return 0, false
	}
	return v.Scalar, true
}

// MaxRecordLine bounds one JSONL line (a request with a very long
// inter_chunk_latency list is a few MiB at most).
const MaxRecordLine = 64 << 20

// ReadRecords streams the records of a profile_export.jsonl to fn, in file
// order, holding one line at a time. A line that is not a record is an
// error naming the file and line; fn's error stops the read and is
// returned as is.
func ReadRecords(path string, fn func(*Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ScanRecords(f, path, fn)
}

// ScanRecords is ReadRecords over a reader; name is used in errors.
func ScanRecords(r io.Reader, name string, fn func(*Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxRecordLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		rec, err := parseRecord(b)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, MaxRecordLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

type recordLine struct {
	Metadata struct {
		Phase          string `json:"benchmark_phase"`
		StartNs        int64  `json:"request_start_ns"`
		AckNs          int64  `json:"request_ack_ns"`
		EndNs          int64  `json:"request_end_ns"`
		CreditIssuedNs int64  `json:"credit_issued_ns"`
		SessionNum     int    `json:"session_num"`
		ConversationID string `json:"conversation_id"`
		XRequestID     string `json:"x_request_id"`
		WorkerID       string `json:"worker_id"`
		TurnIndex      int    `json:"turn_index"`
		Cancelled      bool   `json:"was_cancelled"`
	} `json:"metadata"`
	Metrics json.RawMessage `json:"metrics"`
	Error   json.RawMessage `json:"error"`
}

type recordMetric struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
}

func parseRecord(b []byte) (*Record, error) {
	var l recordLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("not a record line: %w", err)
	}
	tags, raws, err := orderedObject(l.Metrics)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	md := &l.Metadata
	rec := &Record{Phase: md.Phase, Metrics: make(map[string]Value, len(tags)), Meta: RecordMeta{
		StartNs: md.StartNs, AckNs: md.AckNs, EndNs: md.EndNs, CreditIssuedNs: md.CreditIssuedNs,
		SessionNum: md.SessionNum, ConversationID: md.ConversationID, XRequestID: md.XRequestID,
		WorkerID: md.WorkerID, TurnIndex: md.TurnIndex, Cancelled: md.Cancelled,
	}}
	rec.Failed = len(l.Error) > 0 && string(l.Error) != "null"
	if rec.Failed {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l.Error, &e) == nil {
			rec.Meta.ErrorType = e.Type
		}
	}
	for i, tag := range tags {
		var m recordMetric
		if json.Unmarshal(raws[i], &m) != nil || len(m.Value) == 0 || string(m.Value) == "null" {
			continue
		}
		v := Value{Unit: m.Unit}
		if m.Value[0] == '[' {
			if err := json.Unmarshal(m.Value, &v.List); err != nil {
				return nil, fmt.Errorf("metric %s: %w", tag, err)
			}
			v.IsList = true
		} else if err := json.Unmarshal(m.Value, &v.Scalar); err != nil {
			continue // a non-numeric value (none are written today) is not a metric here
		}
		if _, dup := rec.Metrics[tag]; !dup {
			rec.Tags = append(rec.Tags, tag)
		}
		rec.Metrics[tag] = v
	}
	return rec, nil
}
