package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
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
	ask := "; give --custom-dataset-type"
	if isDir(path) {
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
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".parquet":
		if isBasetenFile(path) {
			return TypeBasetenTrace, nil
		}
		return "", &InputError{File: path, Err: errors.New("a Parquet file without the Baseten trace columns (timestamp_start_unix_ms, prompt, input_tokens, output_tokens)" + ask)}
	case ext == ".json" && isWekaFile(path):
		return TypeWekaTrace, nil
	}
	first, err := firstLine(path)
	if err != nil {
		return "", err
	}
	if first == nil {
		return "", &InputError{File: path, Err: errors.New("the dataset is empty")}
	}
	r, err := parseRow(first)
	if err != nil {
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
		return "", &InputError{File: path, Line: 1, Err: fmt.Errorf("cannot detect the dataset format: %v%s", err, ask)}
	}
	if typ, ok, _ := r.str("type"); ok {
		for _, t := range Types() {
			if t == typ {
				return t, nil
			}
		}
	}
	switch {
	case isCaptureRow(r):
		return TypeSageMakerDataCapture, nil
	case isTraceLabRow(r):
		return TypeTraceLab, nil
	}
	if typ, ok := speedBenchDetect(path, first); ok {
		return typ, nil
	}
	var matches []string
	if isInputsJSON(r) {
		matches = append(matches, TypeInputsJSON)
	}
	if _, err := parseTurnRow(r, false); err == nil && !r.has("turns") {
		matches = append(matches, TypeSingleTurn)
	}
	if _, _, err := parseMultiTurnRow(first); err == nil {
		matches = append(matches, TypeMultiTurn)
	}
	if isMooncakeRow(r) {
		matches = append(matches, TypeMooncakeTrace)
	}
	if _, err := bailianLine(path, 1, first); err == nil {
		matches = append(matches, TypeBailianTrace)
	}
	if isRawPayloadRow(r) && !r.has("data") {
		matches = append(matches, TypeRawPayload)
	}
	if isDagRow(r) {
		matches = append(matches, TypeDagJSONL)
	}
	switch len(matches) {
	case 0:
		return "", &InputError{File: path, Line: 1, Err: errors.New("no dataset format matches this line" + ask)}
	case 1:
		return matches[0], nil
	}
	return "", &InputError{File: path, Line: 1, Err: fmt.Errorf("the line fits several formats (%s)%s", strings.Join(matches, ", "), ask)}
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
