// Package pyfmt spells values the way Python does, for the places where
// AIPerf's output is text that Python formatted: repr() of floats (artifact
// directory names, messages), orjson's float spelling (JSON artifacts),
// repr() and str() of strings, lists and dicts (dataset prompts, CSV
// cells, sort keys), and the thousands-grouped f"{v:,.2f}" of console
// tables. It is the one copy of these rules; every spelling is
// table-tested against CPython's output.
//
// It imports nothing internal, so every layer may use it.
package pyfmt
