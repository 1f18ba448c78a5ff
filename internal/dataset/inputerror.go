package dataset

import (
	"fmt"
	"strings"
)

// InputError is a problem with a dataset file the user supplied. It names
// the file, the 1-based line (0 when the problem is not on one line, e.g. an
// empty file) and the field (a JSON path such as "turns[1].text", or a CSV
// column; "" when the whole line is at fault), so the user can fix the
// input without guessing.
type InputError struct {
	File  string
	Line  int
	Field string
	Err   error
}

// Error implements error as "file:line: field: problem".
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *InputError) Unwrap() error { return e.Err }

// inputErr builds an *InputError with a formatted problem.
func inputErr(file string, line int, field, format string, args ...any) error {
	return &InputError{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}

// maxInputErrors bounds how many problems one file reports at once, so a
// wholly wrong file does not print thousands of lines.
const MaxInputErrors = 20
