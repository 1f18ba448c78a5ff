//go:build ignore

// Command tokenizer-corpus writes the mixed-text corpus the tokenizer.json
// reader is checked on (internal/tokenizer/hf/testdata/corpus.txt.gz) and
// the short cases checked id by id (testdata/corpus_cases.json).
//
// Run from the repository root: go run scripts/tokenizer-corpus.go
//
// Every source is licence-clean: the public-domain Shakespeare corpus this
// repository already embeds, Go's own BSD-licensed source (a fixed list of
// files under $(go env GOROOT)/src; regenerating with another Go release
// may change those bytes, which is why the output is committed), and text
// generated here from Unicode ranges with a fixed seed. The output is a
// deterministic function of those inputs.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const (
	outDir     = "internal/tokenizer/hf/testdata"
	targetSize = 1_150_000 // bytes of corpus text
	maxLine    = 1500      // no line is longer, so chunks stay near 4 KiB
)

// goFiles are the Go source files used as code, relative to GOROOT/src.
var goFiles = []string{
	"strings/strings.go", "strings/builder.go", "strings/replace.go", "strings/reader.go",
	"bufio/bufio.go", "bufio/scan.go", "sort/sort.go", "sort/search.go",
	"unicode/utf8/utf8.go", "bytes/buffer.go", "bytes/bytes.go", "strconv/number.go",
	"strconv/quote.go", "encoding/json/encode.go", "encoding/json/decode.go",
	"net/http/server.go", "net/url/url.go", "text/template/exec.go", "regexp/regexp.go",
	"fmt/print.go", "fmt/scan.go", "time/format.go", "container/heap/heap.go",
	"math/big/nat.go", "os/file.go", "path/filepath/path.go", "sync/mutex.go",
}

// specialTokens are added-token strings of the test models, so the corpus
// exercises the added-token split (and ordinary text that merely looks
// like them).
var specialTokens = []string{
	"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|begin_of_text|>", "<|end_of_text|>",
	"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|reserved_special_token_5|>",
	"<s>", "</s>", "<unk>", "<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "<pad>", "<mask>",
	"<unused0>", "<unused42>", "[multimodal]", "<think>", "</think>", "<tool_call>", "</tool_call>",
	"<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|vision_start|>",
	"<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<｜fim▁hole｜>",
	"<|startoftext|>", "<|return|>", "<|channel|>", "<|message|>", "<|start|>", "<|end|>", "<|call|>",
	"<|constrain|>", "<|im_start", "im_end|>", "< s >", "<<s>>", "<|IM_START|>",
}

// script is a Unicode block the generated lines draw letters from.
type script struct {
	name   string
	lo, hi rune
	space  bool // words are separated by spaces
}

var scripts = []script{
	{"cjk", 0x4E00, 0x9FA5, false}, {"hiragana", 0x3041, 0x3096, false}, {"katakana", 0x30A1, 0x30FA, false},
	{"hangul", 0xAC00, 0xD7A3, true}, {"arabic", 0x0621, 0x064A, true}, {"hebrew", 0x05D0, 0x05EA, true},
	{"cyrillic", 0x0410, 0x044F, true}, {"greek", 0x03B1, 0x03C9, true}, {"devanagari", 0x0905, 0x0939, true},
	{"thai", 0x0E01, 0x0E2E, false}, {"latin1", 0x00C0, 0x00FF, true}, {"latinext", 0x0100, 0x017F, true},
}

var emoji = []string{
	"😀", "😂", "🥲", "🤖", "🎉", "🚀", "🔥", "💡", "✅", "❌", "⚠️", "❤️", "👍", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦",
	"🏳️‍🌈", "🇫🇷", "🇯🇵", "🇺🇸", "☕", "🌍", "🧪", "📈", "🐍", "🦀", "🐹", "✨", "🙏🏿", "1️⃣", "©", "™",
}

var words = []string{
	"the", "model", "token", "latency", "throughput", "server", "request", "stream", "batch", "prompt",
	"It's", "don't", "WE'RE", "they've", "I'M", "you'll", "she'd", "O'Brien", "rock'n'roll",
	"café", "naïve", "résumé", "Zürich", "São", "Paulo", "façade", "Ångström", "coöperate",
	"HTTP/1.1", "gRPC", "JSON", "UTF-8", "x86_64", "ÉCOLE", "İstanbul", "straße", "ǅemal",
}

func main() {
	log.SetFlags(0)
	r := rand.New(rand.NewPCG(20261130, 3))
	english := readShakespeare()
	code := readGoSource()
	var unicodeLines []string
	for len(unicodeLines) < 12000 {
		unicodeLines = append(unicodeLines, genLine(r))
	}
	streams := [][]string{english, code, unicodeLines}
	pos := make([]int, len(streams))
	var out bytes.Buffer
	for out.Len() < targetSize {
		k := r.IntN(len(streams))
		n := 3 + r.IntN(30)
		for i := 0; i < n; i++ {
			line := streams[k][pos[k]%len(streams[k])]
			pos[k]++
			if len(line) > maxLine {
				line = line[:cut(line, maxLine)]
			}
			out.WriteString(line)
			out.WriteString(lineEnd(r))
		}
	}
	writeGzip(filepath.Join(outDir, "corpus.txt.gz"), out.Bytes())
	writeCases(r, english, code, unicodeLines)
	log.Printf("corpus: %d bytes", out.Len())
}

// cut returns a byte index <= n on a character boundary of s.
func cut(s string, n int) int {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// lineEnd is usually "\n", sometimes "\r\n" or a blank-line run.
func lineEnd(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return "\r\n"
	case 1:
		return "\n\n"
	case 2:
		return "\n\n\n\n"
	case 3:
		return " \n"
	}
	return "\n"
}

func readShakespeare() []string {
	f, err := os.Open("internal/dataset/synthesis/corpus/shakespeare.txt.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() && len(lines) < 14000 {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	return lines
}

func readGoSource() []string {
	var lines []string
	for _, name := range goFiles {
		data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", name))
		if err != nil {
			log.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimRight(string(data), "\n"), "\n")...)
	}
	return lines
}

// genLine makes one line of generated text of a random flavour.
func genLine(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(10) {
	case 0, 1: // one script, words of random length
		s := scripts[r.IntN(len(scripts))]
		for i, n := 0, 3+r.IntN(20); i < n; i++ {
			if i > 0 && (s.space || r.IntN(4) == 0) {
				b.WriteString(" ")
			}
			for j, m := 0, 1+r.IntN(8); j < m; j++ {
				b.WriteRune(s.lo + rune(r.IntN(int(s.hi-s.lo+1))))
			}
			if r.IntN(6) == 0 {
				b.WriteString([]string{"。", "、", "，", "！", "؟", "،", ".", ",", "…", "«", "»"}[r.IntN(11)])
			}
		}
	case 2: // mixed words, emoji and special tokens
		for i, n := 0, 4+r.IntN(16); i < n; i++ {
			if i > 0 {
				b.WriteString([]string{" ", " ", " ", "  ", "", "\t", "\u00a0", "\u3000"}[r.IntN(8)])
			}
			switch r.IntN(4) {
			case 0:
				b.WriteString(emoji[r.IntN(len(emoji))])
			case 1:
				b.WriteString(specialTokens[r.IntN(len(specialTokens))])
			default:
				b.WriteString(words[r.IntN(len(words))])
			}
		}
	case 3: // digits and numbers
		for i, n := 0, 2+r.IntN(10); i < n; i++ {
			if i > 0 {
				b.WriteString([]string{" ", ", ", "-", ".", "/", ":", ""}[r.IntN(7)])
			}
			for j, m := 0, 1+r.IntN(12); j < m; j++ {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		if r.IntN(3) == 0 {
			b.WriteString(" ١٢٣ ४५६ ①② ½ Ⅻ ２０２６")
		}
	case 4: // whitespace runs
		for i, n := 0, 2+r.IntN(6); i < n; i++ {
			b.WriteString(strings.Repeat([]string{" ", "\t", "  ", "\u00a0", " \t"}[r.IntN(5)], 1+r.IntN(12)))
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteString(strings.Repeat(" ", r.IntN(5)))
	case 5: // decomposed accents and combining marks (NFC changes these)
		for i, n := 0, 3+r.IntN(10); i < n; i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			for j, m := 0, 2+r.IntN(6); j < m; j++ {
				b.WriteByte(byte('a' + r.IntN(26)))
				if r.IntN(2) == 0 {
					b.WriteRune(0x0300 + rune(r.IntN(0x70)))
				}
			}
		}
		b.WriteString(" ﬁ ﬂ Ⅳ ㎏ ｶﾀｶﾅ Å Ω ｆｕｌｌｗｉｄｔｈ")
	case 6: // long runs that make long words (the heap merge path)
		c := []string{"=", "-", "a", "ab", "\u2581", "0", "*", "ĠĠ", "é", "字", "#"}[r.IntN(11)]
		b.WriteString(strings.Repeat(c, 20+r.IntN(180)))
		b.WriteString(" ")
		for j, m := 0, 60+r.IntN(200); j < m; j++ {
			b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[r.IntN(64)])
		}
	case 7: // URLs, paths, markup, punctuation runs
		b.WriteString([]string{
			"https://example.com/path/to/resource?q=1&lang=en#frag",
			"<div class=\"a\">Hello, <b>world</b>!</div>",
			"C:\\Users\\Test\\file.txt", "~/go/pkg/mod/github.com/x/y@v1.2.3",
			"{\"key\": [1, 2.5, -3e10, null, true], \"s\": \"\\u00e9\"}",
			"$ echo \"$HOME\" | grep -E '^/root' && exit 0",
			"SELECT * FROM t WHERE id IN (1,2,3) ORDER BY ts DESC;",
			"!!!??? ... ---- ==== **** #### @@@@ ~~~~ ```go``` '''quoted'''",
		}[r.IntN(8)])
		b.WriteString(" ")
		b.WriteString(words[r.IntN(len(words))])
	case 8: // control characters and rare spaces
		b.WriteString("ctrl\x01\x02\x1b[0m\x7f bell\x07 zero\u200bwidth joiner\u200d nbsp\u00a0x\u2028ls\u2029ps \u202fnnbsp\u205f\u3000end")
	case 9: // mixed-case words and contractions
		for i, n := 0, 5+r.IntN(15); i < n; i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			w := words[r.IntN(len(words))]
			if r.IntN(3) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			if r.IntN(5) == 0 {
				b.WriteString([]string{"'s", "'S", "'ll", "'LL", "'ve", "'d", "'t", "'Re"}[r.IntN(8)])
			}
		}
	}
	return b.String()
}

// writeCases writes the short inputs checked id by id: hand-written edge
// cases plus lines drawn from each stream.
func writeCases(r *rand.Rand, streams ...[]string) {
	cases := []string{
		"", " ", "  ", "\n", "\r\n", "\t", "a", "Hello world", "Hello  world!\n\n",
		"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
		"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
		"<s>[INST] Hi [/INST]</s>", "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
		"<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜>", " <s> ", "<s><s></s>", "<s", "s>",
		"你好，世界！", "こんにちは世界", "안녕하세요", "مرحبا بالعالم", "שלום עולם", "Привет, мир",
		"🎉🎉🎉", "👨‍👩‍👧‍👦", "🇫🇷🇯🇵", "12345678901234567890", "3.14159 2,718 1e-10",
		"café", "cafe\u0301", "ﬁne", "Ω Å", "It's I'M we'RE", "   leading", "trailing   ",
		"tabs\t\tand\t\t\ttabs", "line1\nline2\r\nline3\rline4", "a\u00a0b\u3000c",
		"====================", strings.Repeat("a", 300), strings.Repeat("ab", 100),
		"func main() {\n\tfmt.Println(\"hi\")\n}\n", "x = [i**2 for i in range(10)]  # squares",
		"\x00\x01\x1b", "\u2581\u2581hello", "<0x41>", "<unk>", "[multimodal]<mask>",
	}
	for _, s := range streams {
		for i := 0; i < 12; i++ {
			cases = append(cases, s[r.IntN(len(s))])
		}
	}
	data, err := json.MarshalIndent(cases, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "corpus_cases.json"), append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func writeGzip(path string, data []byte) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d bytes gzipped)\n", path, buf.Len())
}
