package export

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// outputsMetrics are the per-request metrics outputs.json pairs with each
// response, in AIPerf's order (its allowlist); a record lacks the ones it
// has no value for (TTFT and ITL without streaming).
var outputsMetrics = []string{
	"input_sequence_length", "output_token_count", "output_sequence_length",
	"request_latency", "time_to_first_token", "inter_token_latency",
}

// OutputsWriter writes outputs.json (--export-outputs-json): the generated
// text of every profiling request with its ids, timestamps and key metrics
// in display units, as AIPerf 0.13 writes it. Records are streamed, as they
// finish, to a fragment file in output_fragments/ (so a run that dies
// keeps what it had), and Finish gathers them into outputs.json sorted by
// session_num and turn_index, then removes the fragments. Write and Finish
// are called from one goroutine.
type OutputsWriter struct {
	path, fragments string
	lw              *lineWriter
	opt             LineOptions
}

// NewOutputsWriter starts the fragment file for path (outputs.json) in
// <dir of path>/output_fragments/.
func NewOutputsWriter(path string, o LineOptions) (*OutputsWriter, error) {
	if o.Clock == nil {
		return nil, errors.New("export: OutputsWriter needs a clock")
	}
	frags := filepath.Join(filepath.Dir(path), "output_fragments")
	lw, err := newLineWriter(filepath.Join(frags, "output_fragments_record_processor.jsonl"), o.FlushEvery, o.FlushLines)
	if err != nil {
		return nil, err
	}
	return &OutputsWriter{path: path, fragments: frags, lw: lw, opt: o}, nil
}

// Write queues the fragment of a profiling record; other phases are not
// part of outputs.json.
func (w *OutputsWriter) Write(p *metrics.Processed) error {
	if p == nil || p.Record == nil {
		return errors.New("export: nil record")
	}
	if p.Record.Phase != record.Profiling {
		return nil
	}
	return w.lw.add(func(dst []byte) []byte { return appendOutputFragment(dst, p, w.opt) })
}

// appendOutputFragment is one outputs.json entry: session_num,
// conversation_id, turn_index, x_request_id, request_start_ns,
// request_end_ns, metrics, response_text (null without text).
func appendOutputFragment(dst []byte, p *metrics.Processed, o LineOptions) []byte {
	r := p.Record
	w := jsonw{b: dst}
	w.open('{')
	w.key("session_num")
	w.int(int64(r.Seq))
	w.key("conversation_id")
	w.str(r.ConversationID)
	w.key("turn_index")
	w.int(int64(r.TurnIndex))
	w.key("x_request_id")
	w.str(r.XRequestID)
	w.key("request_start_ns")
	w.int(o.Clock.WallNanos(r.Sent))
	w.key("request_end_ns")
	w.int(o.Clock.WallNanos(r.End))
	w.key("metrics")
	w.open('{')
	for _, tag := range outputsMetrics {
		for i := range p.Values {
			if v := &p.Values[i]; v.Metric.Tag == tag && !v.Metric.List && stats.Finite(v.Scalar) {
				w.key(tag)
				w.sep()
				w.b = appendRecordNumber(w.b, v.Metric, v.Scalar)
			}
		}
	}
	w.close('}')
	w.key("response_text")
	if p.OutputText == "" {
		w.raw([]byte("null"))
	} else {
		w.str(p.OutputText)
	}
	w.close('}')
	return w.b
}

// Finish closes the fragment file and writes outputs.json from it. The
// fragments are removed once outputs.json is on disk.
func (w *OutputsWriter) Finish() error {
	if err := w.lw.close(); err != nil {
		return err
	}
	frags, err := readFragments(w.lw.path)
	if err != nil {
		return err
	}
	slices.SortStableFunc(frags, func(a, b outputFragment) int {
		return cmp.Or(cmp.Compare(a.Session, b.Session), cmp.Compare(a.Turn, b.Turn))
	})
	doc := jsonw{}
	doc.open('{')
	doc.key("schema_version")
	doc.str("1.0")
	doc.key("data")
	doc.open('[')
	for _, f := range frags {
		doc.raw(f.raw)
	}
	doc.close(']')
	doc.close('}')
	out, err := doc.indented("outputs.json")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(w.path, append(out, '\n')); err != nil {
		return err
	}
	return os.RemoveAll(w.fragments)
}

// outputFragment is one fragment line and its sort key.
type outputFragment struct {
	Session int `json:"session_num"`
	Turn    int `json:"turn_index"`
	raw     []byte
}

// readFragments reads a fragment file; a torn last line (a run killed
// mid-write) is skipped, as AIPerf skips unparsable fragment lines.
func readFragments(path string) ([]outputFragment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("outputs.json fragments: %w", err)
	}
	defer f.Close()
	var out []outputFragment
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 1 {
			var frag outputFragment
			if json.Unmarshal(line, &frag) == nil {
				frag.raw = line[:len(line)-1]
				if line[len(line)-1] != '\n' {
					frag.raw = line
				}
				out = append(out, frag)
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("outputs.json fragments: %w", err)
		}
	}
}
