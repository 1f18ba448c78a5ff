package hfdata

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/parquet-go/parquet-go"
)

// Row is one dataset row: column name to value. Values are nil, bool,
// int64, float64, string (binary columns too), []any (lists) or
// map[string]any (structs, such as an Image or Audio feature's
// {"bytes", "path"}).
type Row map[string]any

// ErrStop, returned by a row callback, ends reading without an error.
var ErrStop = errors.New("stop reading rows")

// RowError is a row that could not be read: the file and the 0-based row
// index within it.
type RowError struct {
	File string
	Row  int
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: row %d: %v", e.File, e.Row, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// ReadRows calls f for every row of the data files in order, reading them
// one batch at a time so that memory stays proportional to one row group
// (Parquet) or one row (JSON Lines, CSV), not to the files. A JSON file
// holding one array (or one object of equal-length column arrays) is read
// whole. f returning ErrStop ends the read with no error.
func ReadRows(format string, paths []string, f func(Row) error) error {
	for _, p := range paths {
		var err error
		switch format {
		case FormatParquet:
			err = readParquet(p, f)
		case FormatJSON:
			err = readJSON(p, f)
		case FormatCSV:
			err = readCSV(p, f)
		default:
			err = fmt.Errorf("unsupported data file format %q", format)
		}
		if errors.Is(err, ErrStop) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parquetBatch is how many rows are reconstructed at a time.
const parquetBatch = 64

func readParquet(p string, f func(Row) error) error {
	fh, err := os.Open(p)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %w", p, err)
	}
	schema := pf.Schema()
	idx := 0
	buf := make([]parquet.Row, parquetBatch)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				var v any
				if rerr := schema.Reconstruct(&v, r); rerr != nil {
					rows.Close()
					return &RowError{File: p, Row: idx, Err: rerr}
				}
				m, _ := normalize(v).(map[string]any)
				if m == nil {
					m = map[string]any{}
				}
				if ferr := f(Row(m)); ferr != nil {
					rows.Close()
					return ferr
				}
				idx++
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return &RowError{File: p, Row: idx, Err: err}
			}
		}
		rows.Close()
	}
	return nil
}

// normalize maps parquet-go's reconstructed Go values onto Row's types.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return float64(x)
		}
		return int64(x)
	case uint16:
		return int64(x)
	case uint8:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	}
	return fmt.Sprint(v)
}

// maxJSONLine bounds one line of a JSON Lines file.
const maxJSONLine = 256 << 20

func openMaybeGzip(p string) (io.ReadCloser, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(p, ".gz") {
		return fh, nil
	}
	zr, err := gzip.NewReader(fh)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, fh}, nil
}

func readJSON(p string, f func(Row) error) error {
	rc, err := openMaybeGzip(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	first, err := peekNonSpace(br)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	if first == '[' {
		dec := jsontext.NewDecoder(br)
		if _, err := dec.ReadToken(); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			v, err := dec.ReadValue()
			if err != nil {
				return &RowError{File: p, Row: i, Err: err}
			}
			r, err := rowOf(v)
			if err != nil {
				return &RowError{File: p, Row: i, Err: err}
			}
			if err := f(r); err != nil {
				return err
			}
		}
		return nil
	}
	// JSON Lines, or one object (a row, or columns of equal length).
	var objs []Row
	i := 0
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			v, perr := decodeValue(line)
			if perr != nil && i == 0 && len(objs) == 0 {
				// One object spread over several lines.
				rest, rerr := io.ReadAll(io.LimitReader(br, maxJSONLine))
				if rerr != nil {
					return rerr
				}
				v, perr = decodeValue(append(append(line, '\n'), rest...))
				if perr != nil {
					return &RowError{File: p, Row: 0, Err: perr}
				}
				return emitObject(p, v, f)
			}
			if perr != nil {
				return &RowError{File: p, Row: i, Err: perr}
			}
			m, ok := v.(map[string]any)
			if !ok {
				return &RowError{File: p, Row: i, Err: errors.New("a JSON Lines row must be an object")}
			}
			if i == 0 {
				objs = append(objs, m) // hold the first: it may be a column object
			} else {
				if len(objs) > 0 {
					if err := f(objs[0]); err != nil {
						return err
					}
					objs = nil
				}
				if err := f(m); err != nil {
					return err
				}
			}
			i++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if len(objs) == 1 {
		return emitObject(p, map[string]any(objs[0]), f)
	}
	return nil
}

// emitObject emits a lone JSON object: columns when every member is an
// array of the same length, else one row.
func emitObject(p string, v any, f func(Row) error) error {
	m, ok := v.(map[string]any)
	if !ok {
		return &RowError{File: p, Row: 0, Err: errors.New("want a JSON array of rows or an object")}
	}
	n := -1
	for _, c := range m {
		arr, ok := c.([]any)
		if !ok || (n >= 0 && len(arr) != n) {
			n = -2
			break
		}
		n = len(arr)
	}
	if n < 0 || len(m) == 0 {
		return f(Row(m))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i := range n {
		r := Row{}
		for _, k := range keys {
			r[k] = m[k].([]any)[i]
		}
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}

func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case 0xEF: // a UTF-8 byte order mark
			continue
		case 0xBB, 0xBF:
			continue
		}
		return b, br.UnreadByte()
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxJSONLine {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxJSONLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

func rowOf(v jsontext.Value) (Row, error) {
	x, err := decodeValue(v)
	if err != nil {
		return nil, err
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, errors.New("a row must be a JSON object")
	}
	return Row(m), nil
}

// decodeValue decodes JSON into Row values; whole numbers become int64,
// as Arrow's JSON reader types them.
func decodeValue(data []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := decodeNext(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeNext(dec *jsontext.Decoder) (any, error) {
	if dec.PeekKind() == '0' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		raw := string(v)
		if !strings.ContainsAny(raw, ".eE") {
			if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
				return n, nil
			}
		}
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsInf(x, 0) {
			return nil, fmt.Errorf("number %s is out of range", raw)
		}
		return x, nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '[':
		out := []any{}
		for dec.PeekKind() != ']' {
			v, err := decodeNext(dec)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := dec.ReadToken()
		return out, err
	case '{':
		out := map[string]any{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			key := k.String() // k is valid only until the next read
			v, err := decodeNext(dec)
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		_, err := dec.ReadToken()
		return out, err
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func readCSV(p string, f func(Row) error) error {
	rc, err := openMaybeGzip(p)
	if err != nil {
		return err
	}
	defer rc.Close()
	cr := csv.NewReader(rc)
	if strings.HasSuffix(strings.TrimSuffix(p, ".gz"), ".tsv") {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	for i := 0; ; i++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &RowError{File: p, Row: i, Err: err}
		}
		r := Row{}
		for j, h := range header {
			if j < len(rec) {
				r[h] = rec[j]
			} else {
				r[h] = nil
			}
		}
		if err := f(r); err != nil {
			return err
		}
	}
}
