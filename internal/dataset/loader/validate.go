package loader

// ValidateMooncakeTrace checks every line of a mooncake_trace JSONL file
// as the mooncake_trace loader reads it, without building prompts: what
// `aiperf validate mooncake-trace` reports and what `aiperf synthesize`
// checks its own output with. It returns how many non-blank rows the file
// has and every problem found (up to the loaders' limit), each naming
// the file, line and field.
func ValidateMooncakeTrace(path string) (rows int, err error) {
	l := &loader{opts: LoadOptions{Path: path}}
	var p problems
	p.eachLine(path, func(n int, line []byte) error {
		rows++
		_, err := l.mooncakeLine(path, n, line)
		return err
	})
	return rows, p.err()
}
