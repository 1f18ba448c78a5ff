package endpoint

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// FileField is the JSON form of a file upload in a multipart endpoint's
// payload, AIPerf's {"b64_data","filename","content_type"}: the bytes stay
// base64 in the payload, so inputs.json records what was sent and the
// payload remains JSON until it is encoded for the wire.
type FileField struct {
	B64Data     string `json:"b64_data"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
}

// AppendFileField appends f as a JSON object, members in AIPerf's order.
func AppendFileField(dst []byte, f FileField) []byte {
	dst = append(dst, `{"b64_data":`...)
	dst = AppendString(dst, f.B64Data)
	dst = append(dst, `,"filename":`...)
	dst = AppendString(dst, f.Filename)
	dst = append(dst, `,"content_type":`...)
	dst = AppendString(dst, f.ContentType)
	return append(dst, '}')
}

// Multipart encodes a JSON payload object as multipart/form-data, as
// AIPerf's transport does for endpoints that upload files: each member
// becomes a form field in order; an object with a string "b64_data" is a
// file (decoded; its filename, else the field name; its content_type,
// else application/octet-stream); a string is sent as it is, a boolean as
// true/false, a number as written, null is skipped, and any other value
// as compact JSON (AIPerf sends Python's str() of it, which no server
// parses). It returns the body and its Content-Type with the boundary.
func Multipart(payload []byte) (body []byte, contentType string, err error) {
	obj, err := ParseObject(payload)
	if err != nil {
		return nil, "", fmt.Errorf("multipart payload: %w", err)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i, key := range obj.keys {
		if err := writeFormField(w, key, jsontext.Value(obj.vals[i])); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

func writeFormField(w *multipart.Writer, key string, v jsontext.Value) error {
	switch v.Kind() {
	case 'n':
		return nil
	case '"':
		return w.WriteField(key, Unquote(v))
	case '{':
		var f struct {
			B64Data     *string `json:"b64_data"`
			Filename    string  `json:"filename"`
			ContentType string  `json:"content_type"`
		}
		if err := json.Unmarshal(v, &f); err == nil && f.B64Data != nil {
			data, err := base64.StdEncoding.Strict().DecodeString(*f.B64Data)
			if err != nil {
				return fmt.Errorf("field %q: 'b64_data' is not valid base64", key)
			}
			name, ctype := f.Filename, f.ContentType
			if name == "" {
				name = key
			}
			if ctype == "" {
				ctype = "application/octet-stream"
			}
			h := make(textproto.MIMEHeader)
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, escapeQuotes(key), escapeQuotes(name)))
			h.Set("Content-Type", ctype)
			part, err := w.CreatePart(h)
			if err != nil {
				return err
			}
			_, err = part.Write(data)
			return err
		}
	}
	return w.WriteField(key, string(v))
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }
