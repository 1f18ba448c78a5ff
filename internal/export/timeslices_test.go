package export

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func fixtureTimeslices() []Timeslice {
	t0 := time.Unix(0, 1796155185890530816)
	return []Timeslice{
		{Start: t0, End: t0.Add(500 * time.Millisecond), Complete: true, Summary: *fixtureSummary()},
		{Start: t0.Add(500 * time.Millisecond), End: t0.Add(700 * time.Millisecond), Summary: *fixtureSummary()},
	}
}

func TestTimeslicesGolden(t *testing.T) {
	t.Parallel()
	j, err := TimeslicesJSON(fixtureTimeslices(), map[string]any{"models": map[string]any{"items": []any{map[string]any{"name": "m"}}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "timeslices.json", j)
	golden(t, "timeslices.csv", TimeslicesCSV(fixtureTimeslices()))
}

// TestTimeslicesShape checks AIPerf 0.13's observed layout: slices
// carry start_ns and end_ns (no index), only an incomplete slice says
// is_complete, and the CSV is tidy with the index as first column.
func TestTimeslicesShape(t *testing.T) {
	t.Parallel()
	j, err := TimeslicesJSON(fixtureTimeslices(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Timeslices []map[string]json.RawMessage `json:"timeslices"`
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Timeslices) != 2 {
		t.Fatalf("%d slices; want 2", len(doc.Timeslices))
	}
	first, second := doc.Timeslices[0], doc.Timeslices[1]
	if string(first["start_ns"]) != "1796155185890530816" || string(first["end_ns"]) != "1796155186390530816" {
		t.Errorf("slice 0 bounds %s..%s", first["start_ns"], first["end_ns"])
	}
	if _, ok := first["is_complete"]; ok {
		t.Error("a complete slice carries is_complete")
	}
	if string(second["is_complete"]) != "false" {
		t.Errorf("incomplete slice: is_complete = %s; want false", second["is_complete"])
	}
	if _, ok := first["timeslice_index"]; ok {
		t.Error("slices carry timeslice_index; AIPerf 0.13 has none")
	}
	csv := TimeslicesCSV(fixtureTimeslices())
	rows := bytes.Split(bytes.TrimSuffix(csv, []byte("\r\n")), []byte("\r\n"))
	if string(rows[0]) != timesliceCSVHeader {
		t.Errorf("header %q", rows[0])
	}
	if !bytes.HasPrefix(rows[1], []byte("0,1796155185890530816,1796155186390530816,")) ||
		!bytes.HasPrefix(rows[len(rows)-1], []byte("1,1796155186390530816,1796155186590530816,")) {
		t.Errorf("rows start %q ... %q", rows[1], rows[len(rows)-1])
	}
}
