package mockserver

import "slices"

// Span is one interval [From, To) on the server's wall clock in ns, such
// as a request from handler entry to its end, or to its first token.
type Span struct{ From, To int64 }

// Spans is each recorded request from handler entry to its end: what the
// server had open.
func Spans(rs []RecordedRequest) []Span {
	out := make([]Span, len(rs))
	for i, r := range rs {
		out[i] = Span{r.ReceivedNs, r.EndNs}
	}
	return out
}

// MaxOverlap is the most spans open at one instant. A span that ends at t
// is closed before one that starts at t opens, so back-to-back requests on
// one connection count once. Load-shape checks read it from what the
// server saw, never from the client's own records.
func MaxOverlap(spans []Span) int {
	type edge struct {
		at int64
		d  int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.From, 1}, edge{s.To, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	cur, most := 0, 0
	for _, e := range edges {
		cur += e.d
		most = max(most, cur)
	}
	return most
}
