package loader

import (
	"encoding/base64"
	"errors"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\nrest-of-a-png")
	jpegBytes = []byte("\xff\xd8\xff\xe0rest-of-a-jpeg")
)

// mediaDir writes small media files and returns their directory.
func mediaDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"a.png": pngBytes, "b.jpg": jpegBytes, "c.wav": []byte("RIFFwav"), "d.mp3": []byte("ID3mp3"),
		"e.mp4": []byte("ftypmp4"), "f.webm": []byte("\x1a\x45\xdf\xa3webm"), "g.gif": []byte("GIF89a"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadSingle(t *testing.T, content string, o LoadOptions) (*Loaded, error) {
	t.Helper()
	o.Path = writeFile(t, "in.jsonl", content)
	if o.Type == "" {
		o.Type = TypeSingleTurn
	}
	o.Seed, o.SeedSet = 1, true
	return Load(o, builtinTok(t))
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestCustomMediaForms reads every form AIPerf's SingleTurn model takes:
// named texts (rankings' query and passages), image objects with cache
// UUIDs, image_uuids aligned with image strings or alone, audio and video,
// and local files encoded as AIPerf encodes them (URLs and data URLs kept).
func TestCustomMediaForms(t *testing.T) {
	t.Parallel()
	dir := mediaDir(t)
	j := func(s string) string { return strings.ReplaceAll(s, "@", dir+"/") }
	content := strings.Join([]string{
		`{"texts":[{"name":"query","contents":["what is ai"]},{"name":"passages","contents":["p1","p2"]}]}`,
		j(`{"text":"look","images":[{"name":"shots","contents":["@a.png","https://x.test/i.png"],"uuids":["u1","u2"]}]}`),
		j(`{"images":["@b.jpg","data:image/png;base64,AAAA"],"image_uuids":["k1",""]}`),
		`{"text":"cached","image_uuids":["k1","k2"]}`,
		j(`{"audio":"@c.wav","audios":[]}`),
		j(`{"audios":["@d.mp3","wav,UklG","https://x.test/a.wav"]}`),
		j(`{"text":"clip","video":"@e.mp4"}`),
		j(`{"videos":[{"name":"v","contents":["@f.webm","data:video/mp4;base64,AAAA"]}]}`),
	}, "\n")
	l, err := loadSingle(t, content, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	turn := func(i int) dataset.Turn { return l.Dataset.Conversations[i].Turns[0] }
	if tr := turn(0); !slices.Equal(tr.Texts, []string{"what is ai", "p1", "p2"}) || !slices.Equal(tr.TextNames, []string{"query", "passages", "passages"}) {
		t.Errorf("named texts: %q %q", tr.Texts, tr.TextNames)
	}
	if tr := turn(1); !slices.Equal(tr.Images, []string{"data:image/png;base64," + b64(pngBytes), "https://x.test/i.png"}) ||
		!slices.Equal(tr.ImageUUIDs, []string{"u1", "u2"}) || tr.TextNames != nil {
		t.Errorf("image objects: %q %q", tr.Images, tr.ImageUUIDs)
	}
	if tr := turn(2); !slices.Equal(tr.Images, []string{"data:image/jpeg;base64," + b64(jpegBytes), "data:image/png;base64,AAAA"}) ||
		!slices.Equal(tr.ImageUUIDs, []string{"k1", ""}) {
		t.Errorf("image_uuids: %q %q", tr.Images, tr.ImageUUIDs)
	}
	if tr := turn(3); !slices.Equal(tr.Images, []string{"", ""}) || !slices.Equal(tr.ImageUUIDs, []string{"k1", "k2"}) {
		t.Errorf("uuid-only references: %q %q", tr.Images, tr.ImageUUIDs)
	}
	if tr := turn(4); !slices.Equal(tr.Audios, []string{"wav," + b64([]byte("RIFFwav"))}) {
		t.Errorf("audio file: %q", tr.Audios)
	}
	if tr := turn(5); !slices.Equal(tr.Audios, []string{"mp3," + b64([]byte("ID3mp3")), "wav,UklG", "https://x.test/a.wav"}) {
		t.Errorf("audios: %q", tr.Audios)
	}
	if tr := turn(6); !slices.Equal(tr.Videos, []string{"data:video/mp4;base64," + b64([]byte("ftypmp4"))}) {
		t.Errorf("video file: %q", tr.Videos)
	}
	if tr := turn(7); !slices.Equal(tr.Videos, []string{"data:video/webm;base64," + b64([]byte("\x1a\x45\xdf\xa3webm")), "data:video/mp4;base64,AAAA"}) {
		t.Errorf("video objects: %q", tr.Videos)
	}
}

// TestCustomMediaErrors: each bad media input is an error naming the
// file, line and field.
func TestCustomMediaErrors(t *testing.T) {
	t.Parallel()
	dir := mediaDir(t)
	for _, tt := range []struct{ row, want string }{
		{`{"images":["` + dir + `/missing.png"]}`, ":1: images: element 0"},
		{`{"image":"` + dir + `/g.gif"}`, "not a PNG or JPEG"},
		{`{"audio":"` + dir + `/a.png"}`, ".wav or .mp3"},
		{`{"video":"` + dir + `/c.wav"}`, ".mp4 or .webm"},
		{`{"image":"http://"}`, "scheme and a host"},
		{`{"texts":["a",{"name":"q","contents":["b"]}]}`, "texts: element 1"},
		{`{"texts":[{"name":"q","contents":["b"],"size":3}]}`, "texts[0]"},
		{`{"texts":[{"name":"q","contents":["b"],"uuids":["x"]}]}`, "only images carry uuids"},
		{`{"images":[{"contents":["a","b"],"uuids":["x"]}]}`, "images[0].uuids: 1 uuids for 2 contents"},
		{`{"images":["a.png"],"image_uuids":["x","y"]}`, "image_uuids: 2 uuids for 1 images"},
		{`{"image":"a.png","image_uuids":["x"]}`, "singular image"},
		{`{"images":[{"contents":["a"]}],"image_uuids":["x"]}`, "each object's uuids"},
		{`{"image":"x","images":["y"]}`, "cannot be set together"},
		{`{"video":"x","videos":["y"]}`, "cannot be set together"},
	} {
		_, err := loadSingle(t, tt.row, LoadOptions{})
		var ie *dataset.InputError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v; want an input error with %q", tt.row, err, tt.want)
		}
	}
	// Detection parses rows without reading the files they name.
	path := writeFile(t, "in.jsonl", `{"text":"a","image":"`+dir+`/missing.png"}`)
	if typ, err := Detect(path); err != nil || typ != TypeSingleTurn {
		t.Errorf("detect = %q, %v", typ, err)
	}
	// Multi-turn rows resolve their media too, naming the turn.
	_, err := loadSingle(t, `{"turns":[{"text":"a"},{"text":"b","image":"`+dir+`/missing.png"}]}`, LoadOptions{Type: TypeMultiTurn})
	if err == nil || !strings.Contains(err.Error(), "turns[1].images") {
		t.Errorf("multi_turn media error: %v", err)
	}
}

// TestUUIDAndStrip: within a session, an image whose UUID an earlier turn
// sent with its bytes goes out as a UUID alone; repeats in one turn and
// UUID-only references pass through, other sessions are unaffected, and a
// multi_turn file refuses the option.
func TestUUIDAndStrip(t *testing.T) {
	t.Parallel()
	rows := strings.Join([]string{
		`{"session_id":"s","text":"1","images":["data:image/png;base64,A","data:image/png;base64,A"],"image_uuids":["a","a"]}`,
		`{"session_id":"s","text":"2","images":["data:image/png;base64,A","data:image/png;base64,B"],"image_uuids":["a","b"]}`,
		`{"session_id":"s","text":"3","image_uuids":["c"]}`,
		`{"session_id":"s","text":"4","images":["data:image/png;base64,B","data:image/png;base64,C"],"image_uuids":["b","c"]}`,
		`{"session_id":"t","text":"5","images":["data:image/png;base64,A"],"image_uuids":["a"]}`,
	}, "\n")
	for _, strip := range []bool{false, true} {
		l, err := loadSingle(t, rows, LoadOptions{UUIDAndStrip: strip})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for _, c := range l.Dataset.Conversations {
			for _, tr := range c.Turns {
				got = append(got, tr.Images)
			}
		}
		want := [][]string{
			{"data:image/png;base64,A", "data:image/png;base64,A"},
			{"data:image/png;base64,A", "data:image/png;base64,B"},
			{""},
			{"data:image/png;base64,B", "data:image/png;base64,C"},
			{"data:image/png;base64,A"},
		}
		if strip {
			want[1][0] = ""
			want[3][0] = ""
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("strip %v: images %q; want %q", strip, got, want)
		}
	}
	if _, err := loadSingle(t, `{"turns":[{"text":"a"}]}`, LoadOptions{Type: TypeMultiTurn, UUIDAndStrip: true}); !errors.Is(err, ErrUUIDAndStripMultiTurn) {
		t.Errorf("multi_turn with --uuid-and-strip: %v", err)
	}
}
