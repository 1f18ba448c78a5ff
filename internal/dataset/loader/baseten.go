package loader

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
)

// TypeBasetenTrace is Baseten's completion trace export: a Parquet file of
// recorded requests with their literal prompts.
const TypeBasetenTrace = "baseten_trace"

// DefaultBasetenBlockSize is the block size of the KV hints a Baseten
// trace forwards.
const DefaultBasetenBlockSize = 64

// streamBasetenSampling draws --trace-session-sample-ratio.
const streamBasetenSampling = "dataset.loader.baseten_trace.session_sampling"

// basetenRequired are the columns every Baseten trace has.
var basetenRequired = []string{"timestamp_start_unix_ms", "prompt", "input_tokens", "output_tokens"}

// Baseten session columns: the exported id, and the derived fallback.
const (
	basetenSession     = "provided_session_id"
	basetenPoorSession = "poor_man_session_id"
)

// BasetenOptions shape baseten_trace replay (AIPerf's replay options; the
// zero value is AIPerf's default: open-loop replay with min_tokens and KV
// hints forwarded).
type BasetenOptions struct {
	// ClosedLoop replays a session's later turns after the previous one
	// completes plus the recorded think time (the start-to-start gap less
	// the previous request's recorded duration), instead of at their own
	// timestamps (--no-open-loop-replay).
	ClosedLoop bool
	// Strict (open loop only) makes every row its own single-turn
	// conversation (--open-loop-strict).
	Strict bool
	// OmitKVHints stops forwarding hash_ids/block_size (--omit-kv-hints);
	// NoMinTokens stops forcing min_tokens to the recorded output length
	// (--no-force-min-tokens).
	OmitKVHints, NoMinTokens bool
	// Speedup divides the recorded times (--replay-speedup); 0 means 1.
	Speedup float64
	// MaxIdleGap shortens every idle gap of the schedule to at most this
	// (--max-idle-gap-cap-seconds); 0 means none.
	MaxIdleGap time.Duration
	// SampleRatio keeps this fraction of the sessions, whole
	// (--trace-session-sample-ratio); 0 or >= 1 keeps all.
	SampleRatio float64
	// SessionColumn picks the session column when both exist
	// (AIPERF_DATASET_BASETEN_SESSION_COLUMN); "" means provided_session_id.
	SessionColumn string
}

// basetenRow is one recorded request.
type basetenRow struct {
	ts        int64 // ms
	prompt    string
	in, out   int
	hashes    []int
	session   string
	hasSess   bool
	e2e       float64 // ms; 0 when not recorded
	blockSize int
}

// basetenTrace replays a Baseten trace (Parquet; `.arrow`/`.ipc` files are
// not read). Rows are grouped into sessions by the session column (rows
// without one are sessions of their own), timestamps made relative to the
// earliest; every request sends its recorded prompt verbatim, asks for
// max(1, output_tokens) tokens, and carries min_tokens and the hash_ids /
// block_size KV hints in its body. Sessions are sampled whole with
// SampleRatio.
func (l *loader) basetenTrace() ([]dataset.Conversation, error) {
	file := l.opts.Path
	o := l.opts.Baseten
	switch strings.ToLower(filepath.Ext(file)) {
	case ".arrow", ".ipc":
		return nil, &dataset.InputError{File: file, Err: errors.New("Arrow IPC traces are not read: convert the trace to Parquet (pyarrow: pq.write_table(ipc.open_file(f).read_all(), out))")}
	}
	if _, err := os.Stat(file); err != nil {
		return nil, &dataset.InputError{File: file, Err: err}
	}
	rows, sessionKey, err := l.readBasetenRows(file)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if o.SampleRatio > 0 && o.SampleRatio < 1 && sessionKey != "" {
		rows = sampleBasetenSessions(rows, o.SampleRatio, dataset.NewStream(l.seed, streamBasetenSampling))
	}
	if rows, err = l.synthesizeBaseten(file, rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	groups, ids := l.basetenSessions(rows)
	convs := l.basetenConversations(rows, groups, ids)
	var starts []*dataset.Turn // turns carrying an absolute time, for the idle-gap cap
	for c := range convs {
		for t := range convs[c].Turns {
			if convs[c].Turns[t].HasTimestamp {
				starts = append(starts, &convs[c].Turns[t])
			}
		}
	}
	if o.MaxIdleGap > 0 {
		reflowIdleGaps(starts, o.MaxIdleGap)
	}
	sort.SliceStable(convs, func(a, b int) bool { return convs[a].Turns[0].Timestamp < convs[b].Turns[0].Timestamp })
	return convs, nil
}

// readBasetenRows reads the trace's rows; sessionKey is the column that
// names sessions ("" when there is none). Bad rows are gathered as
// problems, up to the loaders' limit.
func (l *loader) readBasetenRows(file string) (rows []basetenRow, sessionKey string, err error) {
	o := l.opts.Baseten
	var p problems
	idx := 0
	err = hfdata.ReadRows(hfdata.FormatParquet, []string{file}, func(r hfdata.Row) error {
		if idx == 0 {
			var missing []string
			for _, c := range basetenRequired {
				if _, ok := r[c]; !ok {
					missing = append(missing, c)
				}
			}
			if len(missing) > 0 {
				return &dataset.InputError{File: file, Err: fmt.Errorf("not a Baseten trace: missing column(s) %s", strings.Join(missing, ", "))}
			}
			sessionKey = basetenSessionKey(r, o.SessionColumn)
		}
		row, err := parseBasetenRow(r, sessionKey)
		if err != nil {
			if !p.add(&dataset.InputError{File: file, Field: fmt.Sprintf("row %d", idx), Err: err}) {
				return hfdata.ErrStop
			}
		}
		rows = append(rows, row)
		idx++
		return nil
	})
	if err != nil {
		var ie *dataset.InputError
		if errors.As(err, &ie) {
			return nil, "", err
		}
		return nil, "", &dataset.InputError{File: file, Err: err}
	}
	if err := p.err(); err != nil {
		return nil, "", err
	}
	return rows, sessionKey, nil
}

// basetenSessions groups rows by session (a row without one is a session
// of its own), each sorted by time; ids are ordered by first request.
func (l *loader) basetenSessions(rows []basetenRow) (groups map[string][]basetenRow, ids []string) {
	groups = map[string][]basetenRow{}
	for _, r := range rows {
		id := r.session
		if !r.hasSess {
			id = l.sessionID()
		}
		if _, ok := groups[id]; !ok {
			ids = append(ids, id)
		}
		groups[id] = append(groups[id], r)
	}
	for _, id := range ids {
		g := groups[id]
		sort.SliceStable(g, func(a, b int) bool { return g[a].ts < g[b].ts })
	}
	sort.SliceStable(ids, func(a, b int) bool {
		ta, tb := groups[ids[a]][0].ts, groups[ids[b]][0].ts
		if ta != tb {
			return ta < tb
		}
		return ids[a] < ids[b]
	})
	return groups, ids
}

// basetenConversations turns the sessions into conversations, timed from
// the earliest row at the replay speed: open loop, each request is its
// own conversation; closed loop, a session's turns follow each other
// after their recorded gaps.
func (l *loader) basetenConversations(rows []basetenRow, groups map[string][]basetenRow, ids []string) []dataset.Conversation {
	o := l.opts.Baseten
	minTS := rows[0].ts
	for _, r := range rows {
		minTS = min(minTS, r.ts)
	}
	speed := o.Speedup
	if speed <= 0 {
		speed = 1
	}
	at := func(r basetenRow) float64 { return float64(r.ts-minTS) / speed } // ms
	var convs []dataset.Conversation
	for _, id := range ids {
		g := groups[id]
		turns := make([]dataset.Turn, len(g))
		for i, r := range g {
			turns[i] = l.basetenTurn(r)
			turns[i].Timestamp, turns[i].HasTimestamp = msDuration(at(r)), true
			if o.ClosedLoop && i > 0 {
				gap := max(0, at(r)-at(g[i-1]))
				turns[i].Delay = msDuration(max(0, gap-g[i-1].e2e/speed))
				turns[i].Timestamp, turns[i].HasTimestamp = 0, false
			}
		}
		switch {
		case !o.ClosedLoop && o.Strict, !o.ClosedLoop && len(turns) > 1:
			// Open loop: every request fires at its own time, so each is
			// its own conversation.
			for i := range turns {
				name := id
				if len(turns) > 1 {
					name = id + "#" + strconv.Itoa(i)
				}
				convs = append(convs, dataset.Conversation{ID: name, Turns: []dataset.Turn{turns[i]}})
			}
		default:
			c := dataset.Conversation{ID: id, Turns: turns}
			if len(turns) > 1 {
				c.Context = dataset.ContextMessageArray
			}
			convs = append(convs, c)
		}
	}
	return convs
}

// synthesizeBaseten applies the Synthesis options a verbatim replay
// allows, as AIPerf: --synthesis-max-isl drops longer requests, the output
// multiplier and --synthesis-max-osl reshape output_tokens; the speedup
// and the prompt-shaping multipliers are refused (the prompt and its KV
// hints are sent as recorded).
func (l *loader) synthesizeBaseten(file string, rows []basetenRow) ([]basetenRow, error) {
	syn := l.opts.Synthesis
	if !syn.Active() {
		return rows, nil
	}
	switch {
	case syn.Transform && syn.SpeedupRatio != 1:
		return nil, &dataset.InputError{File: file, Err: fmt.Errorf("--synthesis-speedup-ratio %v is not supported by the baseten_trace loader; use --replay-speedup for wall-clock compression", syn.SpeedupRatio)}
	case syn.Transform && (syn.PrefixLenMultiplier != 1 || syn.PromptLenMultiplier != 1 || syn.PrefixRootMultiplier != 1):
		return nil, &dataset.InputError{File: file, Err: errors.New("--synthesis-prefix-len-multiplier, --synthesis-prompt-len-multiplier and --synthesis-prefix-root-multiplier are not supported by the baseten_trace loader: it replays recorded prompts verbatim, so reshaping their hash ids would desync the forwarded KV hints")}
	}
	turns := make([]*dataset.Turn, len(rows))
	in := make([]int, len(rows))
	for i, r := range rows {
		turns[i], in[i] = &dataset.Turn{MaxTokens: max(1, r.out)}, r.in
	}
	keep := syn.recorded(in, turns, l.seed)
	out := rows[:0]
	for i, r := range rows {
		if keep[i] {
			r.out = turns[i].MaxTokens
			out = append(out, r)
		}
	}
	return out, nil
}

func (l *loader) basetenTurn(r basetenRow) dataset.Turn {
	o := l.opts.Baseten
	t := dataset.Turn{Texts: []string{r.prompt}, MaxTokens: max(1, r.out)}
	t.InputTokens = l.count(t.Texts)
	if !o.NoMinTokens {
		t.Extra = append(t.Extra, dataset.Field{Key: "min_tokens", Value: []byte(strconv.Itoa(t.MaxTokens))})
	}
	if !o.OmitKVHints {
		if len(r.hashes) > 0 {
			v := []byte{'['}
			for i, h := range r.hashes {
				if i > 0 {
					v = append(v, ',')
				}
				v = strconv.AppendInt(v, int64(h), 10)
			}
			t.Extra = append(t.Extra, dataset.Field{Key: "hash_ids", Value: append(v, ']')})
		}
		if r.blockSize > 0 {
			t.Extra = append(t.Extra, dataset.Field{Key: "block_size", Value: []byte(strconv.Itoa(r.blockSize))})
		}
	}
	return t
}

// basetenSessionKey picks the session column: the configured one when
// the trace has it, else the other one, else none.
func basetenSessionKey(r hfdata.Row, configured string) string {
	if configured == "" {
		configured = basetenSession
	}
	fallback := basetenPoorSession
	if configured == basetenPoorSession {
		fallback = basetenSession
	}
	for _, k := range []string{configured, fallback} {
		if _, ok := r[k]; ok {
			return k
		}
	}
	return ""
}

func nonNegInt(r hfdata.Row, key string, required bool) (int64, bool, error) {
	v, ok := r[key]
	if !ok || v == nil {
		if required {
			return 0, false, fmt.Errorf("%s: missing", key)
		}
		return 0, false, nil
	}
	n, isInt := v.(int64)
	if !isInt || n < 0 {
		return 0, false, fmt.Errorf("%s: want a non-negative integer, got %v", key, v)
	}
	return n, true, nil
}

func parseBasetenRow(r hfdata.Row, sessionKey string) (basetenRow, error) {
	var out basetenRow
	ts, _, err := nonNegInt(r, "timestamp_start_unix_ms", true)
	if err != nil {
		return out, err
	}
	out.ts = ts
	prompt, ok := r["prompt"].(string)
	if !ok {
		return out, fmt.Errorf("prompt: want a string, got %T", r["prompt"])
	}
	out.prompt = prompt
	in, _, err := nonNegInt(r, "input_tokens", true)
	if err != nil {
		return out, err
	}
	o, _, err := nonNegInt(r, "output_tokens", true)
	if err != nil {
		return out, err
	}
	out.in, out.out = int(in), int(o)
	if hs, ok := r["total_hashes"].([]any); ok {
		for i, h := range hs {
			n, isInt := h.(int64)
			if !isInt || n < 0 {
				return out, fmt.Errorf("total_hashes[%d]: want a non-negative integer, got %v", i, h)
			}
			out.hashes = append(out.hashes, int(n))
		}
	}
	if e, ok, err := nonNegInt(r, "duration_e2e_ms", false); err != nil {
		return out, err
	} else if ok {
		out.e2e = float64(e)
	}
	if b, ok, err := nonNegInt(r, "block_size", false); err != nil {
		return out, err
	} else if ok {
		out.blockSize = int(b)
	}
	if sessionKey != "" {
		switch v := r[sessionKey].(type) {
		case string:
			out.session, out.hasSess = v, true
		case int64:
			out.session, out.hasSess = strconv.FormatInt(v, 10), true
		case nil:
		default:
			return out, fmt.Errorf("%s: want a string or integer, got %T", sessionKey, v)
		}
	}
	return out, nil
}

// sampleBasetenSessions keeps each session with probability ratio (in the
// order of their first request, ties by id) and each session-less row
// with the same probability; at least one session is kept.
func sampleBasetenSessions(rows []basetenRow, ratio float64, rng interface{ Float64() float64 }) []basetenRow {
	first := map[string]int64{}
	nulls := 0
	for _, r := range rows {
		if !r.hasSess {
			nulls++
			continue
		}
		if t, ok := first[r.session]; !ok || r.ts < t {
			first[r.session] = r.ts
		}
	}
	ids := make([]string, 0, len(first))
	for id := range first {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool {
		if first[ids[a]] != first[ids[b]] {
			return first[ids[a]] < first[ids[b]]
		}
		return ids[a] < ids[b]
	})
	keep := map[string]bool{}
	for _, id := range ids {
		if rng.Float64() < ratio {
			keep[id] = true
		}
	}
	if len(keep) == 0 && len(ids) > 0 {
		keep[ids[int(rng.Float64()*float64(len(ids)))%len(ids)]] = true
	}
	keepNull := make([]bool, nulls)
	for i := range keepNull {
		keepNull[i] = rng.Float64() < ratio
	}
	var out []basetenRow
	ni := 0
	for _, r := range rows {
		if !r.hasSess {
			if keepNull[ni] {
				out = append(out, r)
			}
			ni++
			continue
		}
		if keep[r.session] {
			out = append(out, r)
		}
	}
	return out
}

// reflowIdleGaps shortens every gap between consecutive absolute times
// (in time order) to at most cap, keeping the earliest time and the
// order.
func reflowIdleGaps(turns []*dataset.Turn, cap time.Duration) {
	sort.SliceStable(turns, func(a, b int) bool { return turns[a].Timestamp < turns[b].Timestamp })
	if len(turns) < 2 {
		return
	}
	capMs := time.Duration(math.Ceil(float64(cap)/float64(time.Millisecond))) * time.Millisecond
	prevOld, prevNew := turns[0].Timestamp, turns[0].Timestamp
	for _, t := range turns[1:] {
		gap := t.Timestamp - prevOld
		prevOld = t.Timestamp
		prevNew += min(gap, capMs)
		t.Timestamp = prevNew
	}
}

// isBasetenFile reports whether path is a Parquet file with the Baseten
// columns.
func isBasetenFile(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".parquet") {
		return false
	}
	ok := false
	hfdata.ReadRows(hfdata.FormatParquet, []string{path}, func(r hfdata.Row) error {
		ok = true
		for _, c := range basetenRequired {
			if _, has := r[c]; !has {
				ok = false
			}
		}
		return hfdata.ErrStop
	})
	return ok
}
