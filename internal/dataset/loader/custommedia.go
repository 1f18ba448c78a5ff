package loader

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// The modalities of a custom dataset row, as AIPerf's SingleTurn model
// reads them: a singular field holding one string, or a plural one holding
// a list of strings or of named media objects {"name": .., "contents":
// [..]} (images also "uuids", aligned with contents).

// mediaField is one modality read from a row: its values in order, each
// value's name ("" for plain strings) and, for images, each one's cache
// UUID ("" for none).
type mediaField struct {
	values, names, uuids []string
	objects              bool // given as media objects
}

// named reports whether any value has a name.
func (m mediaField) named() bool {
	for _, n := range m.names {
		if n != "" {
			return true
		}
	}
	return false
}

// hasUUIDs reports whether any value has a cache UUID.
func (m mediaField) hasUUIDs() bool {
	for _, u := range m.uuids {
		if u != "" {
			return true
		}
	}
	return false
}

// mediaObject is AIPerf's Text, Image, Audio or Video object.
type mediaObject struct {
	Name     string   `json:"name"`
	Contents []string `json:"contents"`
	UUIDs    []string `json:"uuids"`
}

// readMedia reads the singular field one and the plural field many of r;
// at most one may be set. uuids says whether objects may carry "uuids"
// (images only).
func readMedia(r row, one, many string, uuids bool) (mediaField, error) {
	var m mediaField
	s, hasOne, err := r.str(one)
	if err != nil {
		return m, &fieldErr{one, err}
	}
	v := r.raw(many)
	if hasOne && s != "" && v != nil && string(v) != "[]" {
		return m, &fieldErr{one, fmt.Errorf("%s and %s cannot be set together", one, many)}
	}
	if hasOne {
		m.values, m.names, m.uuids = []string{s}, []string{""}, []string{""}
		return m, nil
	}
	if v == nil {
		return m, nil
	}
	if jsontext.Value(v).Kind() != '[' {
		return m, &fieldErr{many, typeErr(v, "an array of strings or of {\"name\", \"contents\"} objects")}
	}
	var elems []jsontext.Value
	if err := json.Unmarshal(v, &elems); err != nil {
		return m, &fieldErr{many, err}
	}
	objects := len(elems) > 0 && elems[0].Kind() == '{'
	m.objects = objects
	for i, e := range elems {
		switch {
		case !objects && e.Kind() == '"':
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return m, &fieldErr{many, err}
			}
			m.values, m.names, m.uuids = append(m.values, s), append(m.names, ""), append(m.uuids, "")
		case objects && e.Kind() == '{':
			var o mediaObject
			if err := json.Unmarshal(e, &o, json.RejectUnknownMembers(true)); err != nil {
				return m, &fieldErr{fmt.Sprintf("%s[%d]", many, i), err}
			}
			if len(o.UUIDs) > 0 && !uuids {
				return m, &fieldErr{fmt.Sprintf("%s[%d].uuids", many, i), errors.New("only images carry uuids")}
			}
			switch {
			case len(o.UUIDs) > 0 && len(o.Contents) == 0:
				o.Contents = make([]string, len(o.UUIDs)) // UUID-only references: empty slots
			case len(o.UUIDs) > 0 && len(o.UUIDs) != len(o.Contents):
				return m, &fieldErr{fmt.Sprintf("%s[%d].uuids", many, i),
					fmt.Errorf("%d uuids for %d contents; they must align one to one", len(o.UUIDs), len(o.Contents))}
			}
			for j, c := range o.Contents {
				u := ""
				if j < len(o.UUIDs) {
					u = o.UUIDs[j]
				}
				m.values, m.names, m.uuids = append(m.values, c), append(m.names, o.Name), append(m.uuids, u)
			}
		default:
			return m, &fieldErr{many, fmt.Errorf("element %d: %w", i,
				typeErr(e, "the same kind as element 0 (all strings, or all {\"name\", \"contents\"} objects)"))}
		}
	}
	return m, nil
}

// readImages reads image/images and image_uuids: UUIDs aligned one to one
// with a list of image strings, or UUID-only references (empty images)
// when images are omitted.
func readImages(r row) (mediaField, error) {
	m, err := readMedia(r, "image", "images", true)
	if err != nil || !r.has("image_uuids") {
		return m, err
	}
	ids, _, err := r.strs("image_uuids")
	if err != nil {
		return m, &fieldErr{"image_uuids", err}
	}
	switch {
	case r.has("image"):
		return m, &fieldErr{"image_uuids", errors.New("needs images as a list of strings, not the singular image")}
	case m.objects:
		return m, &fieldErr{"image_uuids", errors.New("with image objects, give each object's uuids instead")}
	case len(m.values) == 0:
		m.values, m.names = make([]string, len(ids)), make([]string, len(ids))
	case len(ids) != len(m.values):
		return m, &fieldErr{"image_uuids", fmt.Errorf("%d uuids for %d images; they must align one to one", len(ids), len(m.values))}
	}
	m.uuids = ids
	return m, nil
}

// maxMediaFile bounds a media file a dataset names.
const maxMediaFile = 512 << 20

// readMediaFile reads a local media file the dataset names.
func readMediaFile(path string) ([]byte, error) {
	f, err := userfile.OpenData(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMediaFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxMediaFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxMediaFile>>20)
	}
	return b, nil
}

// isMediaURL reports whether s is a URL passed to the server as it is
// (AIPerf's _is_url): it has "://", a scheme and a host. One without the
// other is an error.
func isMediaURL(s string) (bool, error) {
	if !strings.Contains(s, "://") {
		return false, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return false, fmt.Errorf("%q is not a valid URL: %w", s, err)
	}
	if u.Scheme != "" && u.Host != "" {
		return true, nil
	}
	return false, fmt.Errorf("a URL must have both a scheme and a host: %q", s)
}

// resolveImage returns a dataset image as it is sent: a data URL or an
// http(s) URL as given, a local PNG or JPEG file as a data URL of its
// bytes (AIPerf re-encodes the file in its own format with PIL; the bytes
// differ but the image is the same). "" (a UUID-only slot) stays empty.
func resolveImage(s string) (string, error) {
	if s == "" || strings.HasPrefix(s, "data:") {
		return s, nil
	}
	if ok, err := isMediaURL(s); ok || err != nil {
		return s, err
	}
	b, err := readMediaFile(s)
	if err != nil {
		return "", err
	}
	var format string
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		format = "png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		format = "jpeg"
	default:
		return "", fmt.Errorf("%s is not a PNG or JPEG image (the formats AIPerf accepts)", s)
	}
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

// resolveAudio returns a dataset audio clip as it is sent: "wav,<base64>"
// or "mp3,<base64>" as given, a URL as given, a local .wav or .mp3 file
// as its format and base64 bytes.
func resolveAudio(s string) (string, error) {
	if s == "" || strings.HasPrefix(s, "data:") {
		return s, nil
	}
	if head, _, ok := strings.Cut(s, ","); ok && !strings.Contains(head, ":") {
		if f := strings.ToLower(head); f == "wav" || f == "mp3" {
			return s, nil
		}
	}
	if ok, err := isMediaURL(s); ok || err != nil {
		return s, err
	}
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(s), "."))
	if format != "wav" && format != "mp3" {
		return "", fmt.Errorf("%s: audio files must be .wav or .mp3", s)
	}
	b, err := readMediaFile(s)
	if err != nil {
		return "", err
	}
	return format + "," + base64.StdEncoding.EncodeToString(b), nil
}

// resolveVideo returns a dataset video as it is sent: a data URL or a URL
// as given, a local .mp4 or .webm file as a data URL of its bytes.
func resolveVideo(s string) (string, error) {
	if s == "" || strings.HasPrefix(s, "data:") {
		return s, nil
	}
	if ok, err := isMediaURL(s); ok || err != nil {
		return s, err
	}
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(s), "."))
	if format != "mp4" && format != "webm" {
		return "", fmt.Errorf("%s: video files must be .mp4 or .webm", s)
	}
	b, err := readMediaFile(s)
	if err != nil {
		return "", err
	}
	return "data:video/" + format + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

// resolveAll resolves each value with fn, naming the field in errors.
func resolveAll(field string, values []string, fn func(string) (string, error)) error {
	for i, v := range values {
		r, err := fn(v)
		if err != nil {
			return &fieldErr{field, fmt.Errorf("element %d: %w", i, err)}
		}
		values[i] = r
	}
	return nil
}

// readTurnMedia reads every modality of r into t. Media stay as the row
// gives them; resolveTurnMedia reads the local files they name.
func readTurnMedia(r row, t *dataset.Turn) error {
	texts, err := readMedia(r, "text", "texts", false)
	if err != nil {
		return err
	}
	t.Texts = texts.values
	if texts.named() {
		t.TextNames = texts.names
	}
	images, err := readImages(r)
	if err != nil {
		return err
	}
	t.Images = images.values
	if images.hasUUIDs() {
		t.ImageUUIDs = images.uuids
	}
	audios, err := readMedia(r, "audio", "audios", false)
	if err != nil {
		return err
	}
	t.Audios = audios.values
	videos, err := readMedia(r, "video", "videos", false)
	if err != nil {
		return err
	}
	t.Videos = videos.values
	return nil
}

// resolveTurnMedia encodes the local media files t names as AIPerf does
// (URLs and data already encoded stay as they are).
func resolveTurnMedia(t *dataset.Turn) error {
	if err := resolveAll("images", t.Images, resolveImage); err != nil {
		return err
	}
	if err := resolveAll("audios", t.Audios, resolveAudio); err != nil {
		return err
	}
	return resolveAll("videos", t.Videos, resolveVideo)
}

// StripRepeatedImages drops the bytes of images whose cache UUID an
// earlier turn of the conversation already sent with its bytes
// (--uuid-and-strip), keeping the UUID so the server uses its cache.
// Repeats within one turn keep their bytes (the server resolves a
// request's cache misses before caching), and UUID-only references pass
// through. AIPerf's _dedup_repeated_images_inplace.
func StripRepeatedImages(conv *dataset.Conversation) {
	seen := map[string]bool{}
	for t := range conv.Turns {
		turn := &conv.Turns[t]
		var added []string
		for i, u := range turn.ImageUUIDs {
			if u == "" || i >= len(turn.Images) {
				continue
			}
			if seen[u] {
				turn.Images[i] = ""
			} else if turn.Images[i] != "" {
				added = append(added, u)
			}
		}
		for _, u := range added {
			seen[u] = true
		}
	}
}
