package loader

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"io/fs"
	"path/filepath"
	"strings"
)

// Detect names the format of the dataset at path, as AIPerf's detection
// does: a directory is a random_pool (or a raw_payload directory when its
// .jsonl files hold request bodies); a file whose first non-blank line is
// not JSON is an inputs.json (a .json file whose whole content has
// data[].payloads) or a BurstGPT CSV (its header has the required
// columns); otherwise the first line's "type" field, when it names a
// format, decides, and failing that the one format whose schema the line
// fits. No match, or several, is an error asking for
// --custom-dataset-type.
func Detect(path string) (string, error) {
	if isDir(path) {
		return detectDir(path)
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".parquet":
		if isBasetenFile(path) {
			return TypeBasetenTrace, nil
		}
		return "", &dataset.InputError{File: path, Err: errors.New("a Parquet file without the Baseten trace columns (timestamp_start_unix_ms, prompt, input_tokens, output_tokens)" + detectAsk)}
	case ext == ".json" && isWekaFile(path):
		return TypeWekaTrace, nil
	}
	first, err := firstLine(path)
	if err != nil {
		return "", err
	}
	if first == nil {
		return "", &dataset.InputError{File: path, Err: errors.New("the dataset is empty")}
	}
	r, err := parseRow(first)
	if err != nil {
		return detectNonJSON(path, first, err)
	}
	if typ, ok := detectByRow(path, first, r); ok {
		return typ, nil
	}
	matches := detectSchemas(path, first, r)
	switch len(matches) {
	case 0:
		return "", &dataset.InputError{File: path, Line: 1, Err: errors.New("no dataset format matches this line" + detectAsk)}
	case 1:
		return matches[0], nil
	}
	return "", &dataset.InputError{File: path, Line: 1, Err: fmt.Errorf("the line fits several formats (%s)%s", strings.Join(matches, ", "), detectAsk)}
}

// detectAsk ends every detection error.
const detectAsk = "; give --custom-dataset-type"

// detectDir names a directory's format: a Weka trace directory, SageMaker
// data capture, raw_payload request bodies, else a random_pool.
func detectDir(path string) (string, error) {
	if js, err := dirFiles(path, ".json"); err == nil && len(js) > 0 && isWekaFile(js[0]) {
		return TypeWekaTrace, nil
	}
	if f := firstJSONL(path); f != "" {
		if first, err := firstLine(f); err == nil && first != nil {
			if r, err := parseRow(first); err == nil && isCaptureRow(r) {
				return TypeSageMakerDataCapture, nil
			}
		}
	}
	files, err := dirFiles(path, ".jsonl")
	if err != nil {
		return "", err
	}
	if len(files) > 0 {
		if first, err := firstLine(files[0]); err == nil && first != nil {
			if r, err := parseRow(first); err == nil && isRawPayloadRow(r) {
				return TypeRawPayload, nil
			}
		}
	}
	return TypeRandomPool, nil
}

// detectNonJSON names the format of a file whose first line is not JSON
// (rowErr is why): an inputs.json or a BurstGPT CSV.
func detectNonJSON(path string, first []byte, rowErr error) (string, error) {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		if data, err := readFile(path); err == nil {
			if top, err := parseRow(data); err == nil && isInputsJSON(top) {
				return TypeInputsJSON, nil
			}
		}
	}
	if isBurstGPTHeader(first) {
		return TypeBurstGPTTrace, nil
	}
	return "", &dataset.InputError{File: path, Line: 1, Err: fmt.Errorf("cannot detect the dataset format: %v%s", rowErr, detectAsk)}
}

// detectByRow names the format the first line claims or plainly has: its
// "type" field when that names a format, SageMaker data capture, a
// TraceLab row, or SPEED-Bench.
func detectByRow(path string, first []byte, r row) (string, bool) {
	if typ, ok, _ := r.str("type"); ok {
		for _, t := range Types() {
			if t == typ {
				return t, true
			}
		}
	}
	switch {
	case isCaptureRow(r):
		return TypeSageMakerDataCapture, true
	case isTraceLabRow(r):
		return TypeTraceLab, true
	}
	return speedBenchDetect(path, first)
}

// schemaChecks are the formats told apart by whether the first line fits
// their schema, in the order ambiguities are listed.
var schemaChecks = []struct {
	typ  string
	fits func(path string, first []byte, r row) bool
}{
	{TypeInputsJSON, func(_ string, _ []byte, r row) bool { return isInputsJSON(r) }},
	{TypeSingleTurn, func(_ string, _ []byte, r row) bool {
		_, err := parseTurnRow(r, false)
		return err == nil && !r.has("turns")
	}},
	{TypeMultiTurn, func(_ string, first []byte, _ row) bool {
		_, _, err := parseMultiTurnRow(first)
		return err == nil
	}},
	{TypeMooncakeTrace, func(_ string, _ []byte, r row) bool { return isMooncakeRow(r) }},
	{TypeBailianTrace, func(path string, first []byte, _ row) bool {
		_, err := bailianLine(path, 1, first)
		return err == nil
	}},
	{TypeRawPayload, func(_ string, _ []byte, r row) bool { return isRawPayloadRow(r) && !r.has("data") }},
	{TypeDagJSONL, func(_ string, _ []byte, r row) bool { return isDagRow(r) }},
}

// detectSchemas is every format whose schema the first line fits.
func detectSchemas(path string, first []byte, r row) []string {
	var matches []string
	for _, c := range schemaChecks {
		if c.fits(path, first, r) {
			matches = append(matches, c.typ)
		}
	}
	return matches
}

func isInputsJSON(r row) bool {
	raw := r.raw("data")
	if raw == nil || len(raw) < 2 || raw[0] != '[' {
		return false
	}
	return bytes.Contains(raw, []byte(`"payloads":[`))
}

func isRawPayloadRow(r row) bool {
	m := r.raw("messages")
	return m != nil && m[0] == '[' && !r.has("conversation_id")
}

func isMooncakeRow(r row) bool {
	if typ, ok, _ := r.str("type"); ok && typ != TypeMooncakeTrace {
		return false
	}
	modes := 0
	for _, k := range []string{"input_length", "text_input", "messages", "payload"} {
		if r.has(k) {
			modes++
		}
	}
	if modes != 1 {
		return false
	}
	_, _, e1 := r.int("input_length")
	_, _, e2 := r.str("text_input")
	_, _, e3 := r.ints("hash_ids")
	_, _, e4 := r.num("timestamp")
	return e1 == nil && e2 == nil && e3 == nil && e4 == nil
}

func isBurstGPTHeader(line []byte) bool {
	rec, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, h := range rec {
		have[strings.TrimSpace(h)] = true
	}
	for _, c := range burstGPTColumns {
		if !have[c] {
			return false
		}
	}
	return true
}

// firstJSONL is the first .jsonl file under dir, in walk order; "" when
// there is none.
func firstJSONL(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && found == "" && d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
