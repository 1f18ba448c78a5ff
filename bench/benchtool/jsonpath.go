package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// jsonMain prints, space-separated on one line, the value at each dotted
// path of a JSON file ("request_throughput.avg", "schedule_lag.p99",
// "records.0.x"); a missing path prints NA so a script's columns stay put.
func jsonMain(args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: benchtool json FILE key.path...")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	out := make([]string, 0, len(args)-1)
	for _, p := range args[1:] {
		out = append(out, formatJSONValue(lookup(doc, p)))
	}
	_, err = fmt.Fprintln(stdout, strings.Join(out, " "))
	return err
}

// lookup follows a dotted path through objects (by key) and arrays (by
// index); nil when any step is missing.
func lookup(doc any, path string) any {
	cur := doc
	for key := range strings.SplitSeq(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[key]
			if !ok {
				return nil
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// formatJSONValue prints a scalar plainly (numbers in full precision,
// strings unquoted) and anything else as compact JSON; nil prints NA.
func formatJSONValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NA"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v) // decoded JSON always re-encodes
	return string(b)
}
