package sweep

import "math"

// Record is one request as the sweeps see it: run-clock times in ns (start,
// first token, end; Gen NaN without a first token), input and output token
// counts (NaN when unknown) and the gaps between its content chunks in ns
// (ICL; nil when not kept).
type Record struct {
	Start, Gen, End float64
	ISL, OSL        float64
	ICL             []float64
}

// chunkEnds calls f(k, at) for each chunk interval of r: the k-th gap ends
// at Gen plus the sum of the first k+1 gaps.
func chunkEnds(r *Record, f func(k int, at float64)) {
	cs := 0.0
	for k, g := range r.ICL {
		cs += g
		f(k, r.Gen+cs)
	}
}

// ThroughputICL is the ICL-aware decode rate (AIPerf's
// throughput_sweep_line_icl): each chunk gap of a record carries
// (osl-1)/n tokens, n its number of non-zero gaps, at a constant rate over
// the gap, so the curve follows when the tokens actually arrived.
func ThroughputICL(recs []Record) Step {
	var starts, ends []event
	for i := range recs {
		r := &recs[i]
		if nan(r.Gen) || nan(r.OSL) || r.OSL < 1 {
			continue
		}
		nz := 0
		for _, g := range r.ICL {
			if g > 0 {
				nz++
			}
		}
		if nz == 0 {
			continue
		}
		perMsg := (r.OSL - 1) / float64(nz)
		chunkEnds(r, func(k int, at float64) {
			if g := r.ICL[k]; g > 0 {
				rate := perMsg / g
				starts, ends = append(starts, event{at - g, rate}), append(ends, event{at, -rate})
			}
		})
	}
	return cumulate(append(starts, ends...))
}

// TokensInFlight is the number of tokens held by requests in flight
// (AIPerf's tokens_in_flight_sweep_line, the KV-cache load): a request
// holds its input tokens from its start and its output tokens too from its
// first token, until its end.
func TokensInFlight(recs []Record) Step {
	var pfS, gnS, endBoth, endIn, endGen []event
	for i := range recs {
		r := &recs[i]
		hasStart := !nan(r.Start) && !nan(r.ISL)
		hasGen := !nan(r.Gen) && !nan(r.OSL) && r.End-r.Gen > 0
		pf := hasStart && !nan(r.Gen) && r.Gen > r.Start
		if pf {
			pfS = append(pfS, event{r.Start, r.ISL})
		}
		if hasGen {
			gnS = append(gnS, event{r.Gen, r.OSL})
		}
		if nan(r.End) {
			continue
		}
		switch {
		case pf && hasGen:
			endBoth = append(endBoth, event{r.End, -(r.ISL + r.OSL)})
		case pf:
			endIn = append(endIn, event{r.End, -r.ISL})
		case hasGen:
			endGen = append(endGen, event{r.End, -r.OSL})
		}
	}
	var ev []event
	for _, part := range [][]event{pfS, gnS, endBoth, endIn, endGen} {
		ev = append(ev, part...)
	}
	return cumulate(ev)
}

// TokensInFlightICL is TokensInFlight with the output tokens arriving as
// the chunks do (AIPerf's tokens_in_flight_sweep_line_icl): one token at
// the first token, then (osl-1)/n at each of the record's n chunk gaps
// (zero gaps included), each chunk clamped to just before the record's end.
// It is TokensInFlight when no record has chunk gaps.
func TokensInFlightICL(recs []Record) Step {
	anyICL := false
	for i := range recs {
		if len(recs[i].ICL) > 0 {
			anyICL = true
			break
		}
	}
	if !anyICL {
		return TokensInFlight(recs)
	}
	hasICL := make([]bool, len(recs))
	var chunks []event
	for i := range recs {
		r := &recs[i]
		if nan(r.Gen) || nan(r.OSL) || r.OSL < 1 || len(r.ICL) == 0 {
			continue
		}
		per := (r.OSL - 1) / float64(len(r.ICL))
		chunkEnds(r, func(k int, at float64) {
			if r.ICL[k] < 0 {
				return
			}
			if !nan(r.End) && at >= r.End {
				at = math.Nextafter(r.End, math.Inf(-1))
			}
			chunks = append(chunks, event{at, per})
			hasICL[i] = true
		})
	}
	var ttft, pfS, endBoth, endIn, endICL []event
	for i := range recs {
		r := &recs[i]
		if !nan(r.Gen) && hasICL[i] && !nan(r.OSL) && r.OSL >= 1 {
			ttft = append(ttft, event{r.Gen, 1})
		}
		pf := !nan(r.Start) && !nan(r.ISL) && !nan(r.Gen) && r.Gen > r.Start
		if pf {
			pfS = append(pfS, event{r.Start, r.ISL})
		}
		if nan(r.End) {
			continue
		}
		switch {
		case pf && hasICL[i]:
			endBoth = append(endBoth, event{r.End, -(r.ISL + r.OSL)})
		case pf:
			endIn = append(endIn, event{r.End, -r.ISL})
		case hasICL[i]:
			endICL = append(endICL, event{r.End, -r.OSL})
		}
	}
	var ev []event
	for _, part := range [][]event{ttft, chunks, pfS, endBoth, endIn, endICL} {
		ev = append(ev, part...)
	}
	return cumulate(ev)
}
