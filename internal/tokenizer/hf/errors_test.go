package hf

import (
	"strings"
	"testing"
)

// minimalBPE is a valid tokenizer.json with a two-letter BPE vocabulary;
// the error cases replace one part of it.
const minimalBPE = `{"version":"1.0","added_tokens":[],"normalizer":%N,"pre_tokenizer":%P,"post_processor":%Q,"decoder":%D,
"model":%M}`

const okModel = `{"type":"BPE","dropout":null,"unk_token":null,"vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}`

func specWith(n, p, q, d, m string) string {
	r := strings.NewReplacer("%N", n, "%P", p, "%Q", q, "%D", d, "%M", m)
	return r.Replace(minimalBPE)
}

// TestUnsupportedIsAnError checks that every unknown component type,
// unknown option and unusable value is reported with the JSON path of the
// component, never tokenized approximately.
func TestUnsupportedIsAnError(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string // substrings of the error
	}{
		{"unknown normalizer", specWith(`{"type":"Precompiled","precompiled_charsmap":""}`, "null", "null", "null", okModel),
			[]string{"normalizer", `unsupported type "Precompiled"`}},
		{"unknown normalizer in sequence", specWith(`{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Nope"}]}`, "null", "null", "null", okModel),
			[]string{"normalizer.normalizers[1]", `"Nope"`}},
		{"unknown option of NFC", specWith(`{"type":"NFC","fast":true}`, "null", "null", "null", okModel),
			[]string{"normalizer (NFC)", `unsupported option "fast"`}},
		{"Replace without pattern", specWith(`{"type":"Replace","content":"x"}`, "null", "null", "null", okModel),
			[]string{"normalizer.pattern", "String or Regex"}},
		{"Replace with both patterns", specWith(`{"type":"Replace","pattern":{"String":"a","Regex":"b"},"content":"x"}`, "null", "null", "null", okModel),
			[]string{"normalizer.pattern", "both"}},
		{"Replace with bad regex", specWith(`{"type":"Replace","pattern":{"Regex":"(("},"content":"x"}`, "null", "null", "null", okModel),
			[]string{"normalizer.pattern", "Regex"}},
		{"Replace without content", specWith(`{"type":"Replace","pattern":{"String":"a"}}`, "null", "null", "null", okModel),
			[]string{"normalizer (Replace)", "missing content"}},
		{"Prepend without prepend", specWith(`{"type":"Prepend"}`, "null", "null", "null", okModel),
			[]string{"normalizer (Prepend)", "missing prepend"}},
		{"unknown option of Strip", specWith(`{"type":"Strip","strip_left":true,"strip_middle":true}`, "null", "null", "null", okModel),
			[]string{"normalizer (Strip)", `"strip_middle"`}},
		{"unknown pre-tokenizer", specWith("null", `{"type":"UnicodeScripts"}`, "null", "null", okModel),
			[]string{"pre_tokenizer", `unsupported type "UnicodeScripts"`}},
		{"unknown pre-tokenizer in sequence", specWith("null", `{"type":"Sequence","pretokenizers":[{"type":"ByteLevel"},{"type":"CharDelimiterSplit","delimiter":"x"}]}`, "null", "null", okModel),
			[]string{"pre_tokenizer.pretokenizers[1]", "CharDelimiterSplit"}},
		{"unknown Split behavior", specWith("null", `{"type":"Split","pattern":{"String":" "},"behavior":"Sideways","invert":false}`, "null", "null", okModel),
			[]string{"pre_tokenizer.behavior", `"Sideways"`}},
		{"Split with bad regex", specWith("null", `{"type":"Split","pattern":{"Regex":"[a-"},"behavior":"Isolated","invert":false}`, "null", "null", okModel),
			[]string{"pre_tokenizer.pattern"}},
		{"unknown option of ByteLevel", specWith("null", `{"type":"ByteLevel","add_prefix_space":false,"prefix":"x"}`, "null", "null", okModel),
			[]string{"pre_tokenizer (ByteLevel)", `"prefix"`}},
		{"unknown decoder", specWith("null", "null", "null", `{"type":"CTC"}`, okModel),
			[]string{"decoder", `unsupported type "CTC"`}},
		{"unknown decoder in sequence", specWith("null", "null", "null", `{"type":"Sequence","decoders":[{"type":"Fuse"},{"type":"BPEDecoder"}]}`, okModel),
			[]string{"decoder.decoders[1]", "BPEDecoder"}},
		{"Strip decoder with a long content", specWith("null", "null", "null", `{"type":"Strip","content":"ab","start":1,"stop":0}`, okModel),
			[]string{"decoder (Strip)", "one character"}},
		{"unknown option of Fuse", specWith("null", "null", "null", `{"type":"Fuse","glue":" "}`, okModel),
			[]string{"decoder (Fuse)", `"glue"`}},
		{"unknown post-processor", specWith("null", "null", `{"type":"Unknown"}`, "null", okModel),
			[]string{"post_processor", `unsupported type "Unknown"`}},
		{"template with unknown special token", specWith("null", "null",
			`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{}}`, "null", okModel),
			[]string{"post_processor.single[0]", `"<s>"`}},
		{"template single with B", specWith("null", "null",
			`{"type":"TemplateProcessing","single":[{"Sequence":{"id":"B","type_id":0}}],"pair":[],"special_tokens":{}}`, "null", okModel),
			[]string{"post_processor.single[0]", `"B"`}},
		{"unknown model", specWith("null", "null", "null", "null", `{"type":"WordLevel","vocab":{},"unk_token":"x"}`),
			[]string{"model", `unsupported type "WordLevel"`}},
		{"missing model", specWith("null", "null", "null", "null", "null"),
			[]string{"model: missing"}},
		{"BPE dropout", specWith("null", "null", "null", "null", `{"type":"BPE","dropout":0.1,"vocab":{"a":0},"merges":[]}`),
			[]string{"model (BPE)", "dropout 0.1"}},
		{"BPE unknown option", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":{"a":0},"merges":[],"cache_capacity":10}`),
			[]string{"model (BPE)", `"cache_capacity"`}},
		{"BPE unk_token outside vocab", specWith("null", "null", "null", "null", `{"type":"BPE","unk_token":"<unk>","vocab":{"a":0},"merges":[]}`),
			[]string{"model.unk_token", `"<unk>"`}},
		{"BPE merge outside vocab", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a c"]}`),
			[]string{"model.merges[0]", `"c"`}},
		{"BPE merged token outside vocab", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":{"a":0,"b":1},"merges":[["a","b"]]}`),
			[]string{"model.merges[0]", `merged token "ab"`}},
		{"BPE merge without space", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":{"a":0},"merges":["ab"]}`),
			[]string{"model.merges[0]", "separated by a space"}},
		{"BPE merge of three", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":{"a":0},"merges":[["a","a","a"]]}`),
			[]string{"model.merges[0]", "exactly two"}},
		{"BPE vocab not a map", specWith("null", "null", "null", "null", `{"type":"BPE","vocab":[1,2],"merges":[]}`),
			[]string{"model.vocab"}},
		{"unknown top-level field", `{"version":"1.0","model":` + okModel + `,"extras":1}`,
			[]string{"top level", `"extras"`}},
		{"unknown added-token field", `{"added_tokens":[{"id":0,"content":"a","special":true,"weight":2}],"model":` + okModel + `}`,
			[]string{"added_tokens[0]", `"weight"`}},
		{"not JSON", `{"model": `, []string{"tokenizer.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.json", []byte(tt.spec))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "x.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestMinimalSpecsParse guards the error table's base: with nothing
// replaced it parses and encodes.
func TestMinimalSpecsParse(t *testing.T) {
	tok, err := Parse("x.json", []byte(specWith("null", "null", "null", "null", okModel)))
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("abba"); len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 0 {
		t.Errorf("Encode(abba) = %v, want [2 1 0]", got)
	}
	if got := tok.Decode([]int{2, 1, 0}); got != "ab b a" {
		t.Errorf("Decode without a decoder = %q, want tokens joined by spaces", got)
	}
	if id, ok := tok.TokenID("ab"); !ok || id != 2 {
		t.Errorf("TokenID(ab) = %d, %v", id, ok)
	}
	if tok.Name() != "x.json" {
		t.Errorf("Name = %q", tok.Name())
	}
}
