package endpoint

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
)

// TestMultipart decodes what Multipart writes with the standard library's
// reader: fields in order, the file decoded with its name and type, null
// skipped, booleans and numbers as text, other values as JSON.
func TestMultipart(t *testing.T) {
	t.Parallel()
	payload := []byte(`{"file":{"b64_data":"UklGRgAA","filename":"audio.wav","content_type":"audio/wav"},` +
		`"model":"whisper","stream":false,"temperature":0.5,"skip":null,"opts":{"a":[1,2]},"blob":{"b64_data":"AAE="}}`)
	body, ctype, err := Multipart(payload)
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q: %v", ctype, err)
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	type part struct{ name, file, ctype, data string }
	var got []part
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got = append(got, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(b)})
	}
	want := []part{
		{"file", "audio.wav", "audio/wav", "RIFF\x00\x00"},
		{"model", "", "", "whisper"},
		{"stream", "", "", "false"},
		{"temperature", "", "", "0.5"},
		{"opts", "", "", `{"a":[1,2]}`},
		{"blob", "blob", "application/octet-stream", "\x00\x01"},
	}
	if len(got) != len(want) {
		t.Fatalf("parts = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("part %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	if _, _, err := Multipart([]byte(`{"file":{"b64_data":"!!"}}`)); err == nil || !strings.Contains(err.Error(), "base64") {
		t.Errorf("bad base64: err = %v", err)
	}
}
