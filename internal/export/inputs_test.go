package export

import (
	"os"
	"path/filepath"
	"testing"
)

func fixtureSessions() []Session {
	return []Session{
		{ID: "session_000000", Payloads: [][]byte{
			[]byte(`{"messages":[{"role":"user","content":" would ill become me — to be vain"}],"model":"mock-model","stream":true,"max_completion_tokens":8,"stream_options":{"include_usage":true}}`),
		}},
		{ID: "session_000001", Payloads: [][]byte{
			[]byte(`{"prompt":"<a & b>","model":"mock-model","stream":false,"temperature":0.5}`),
			[]byte(`{"prompt":"second turn","model":"mock-model","stream":false,"extra":[]}`),
		}},
	}
}

func TestInputsGolden(t *testing.T) {
	t.Parallel()
	b, err := Inputs(fixtureSessions())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "inputs.json.golden", b)
	again, _ := Inputs(fixtureSessions())
	if string(again) != string(b) {
		t.Error("same sessions gave different bytes")
	}
}

func TestInputsEmptyAndInvalid(t *testing.T) {
	t.Parallel()
	b, err := Inputs(nil)
	if err != nil || string(b) != "{\n  \"data\": []\n}" {
		t.Errorf("Inputs(nil) = %q, %v", b, err)
	}
	if _, err := Inputs([]Session{{ID: "s", Payloads: [][]byte{[]byte(`{"a":`)}}}); err == nil {
		t.Error("invalid payload accepted")
	}
}

func TestWriteInputs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "inputs.json")
	if err := WriteInputs(path, fixtureSessions()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want, _ := Inputs(fixtureSessions())
	if string(got) != string(want) {
		t.Errorf("file differs from Inputs()")
	}
	if err := WriteInputs(path, []Session{{Payloads: [][]byte{[]byte("nope")}}}); err == nil {
		t.Error("WriteInputs with an invalid payload succeeded")
	}
}
