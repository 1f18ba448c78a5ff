package cluster

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
	"github.com/aiperf-go/aiperf/internal/record"
)

// RecordToWire converts a finished record for the wire. Every field of
// record.Record has a field of its own in clusterpb.Record;
// TestRecordWireRoundTripCoversEveryField fails when a field is added to
// the record and not here.
func RecordToWire(r *record.Record) *clusterpb.Record {
	w := &clusterpb.Record{
		Seq:               r.Seq,
		Phase:             int32(r.Phase),
		PhaseName:         r.PhaseName,
		PhaseIndex:        int32(r.PhaseIndex),
		ProfilingIndex:    int32(r.ProfilingIndex),
		ConversationId:    r.ConversationID,
		TurnIndex:         int32(r.TurnIndex),
		XRequestId:        r.XRequestID,
		XCorrelationId:    r.XCorrelationID,
		WorkerId:          r.WorkerID,
		UrlIndex:          int32(r.URLIndex),
		Model:             r.Model,
		DueNs:             int64(r.Due),
		SentNs:            int64(r.Sent),
		AckNs:             int64(r.Ack),
		EndNs:             int64(r.End),
		CancelledAtNs:     int64(r.CancelledAt),
		Scheduled:         r.Scheduled,
		Status:            int32(r.Status),
		Streaming:         r.Streaming,
		Cancelled:         r.Cancelled,
		ConnectionRetries: int32(r.ConnectionRetries),
		StreamIncomplete:  r.StreamIncomplete,
		ContentType:       r.ContentType,
		InputTexts:        r.InputTexts,
		InputTokens:       int32(r.InputTokens),
		RequestedOsl:      int32(r.RequestedOSL),
		RequestBytes:      int64(r.RequestBytes),
		ResponseBytes:     int64(r.ResponseBytes),
		RequestBody:       r.RequestBody,
		Images:            int32(r.Images),
		AudioSeconds:      r.AudioSeconds,
		CacheBustMarker:   r.CacheBustMarker,
		CacheBustTarget:   r.CacheBustTarget,
		Trace:             traceToWire(&r.Trace),
		Server:            serverToWire(r.Server),
		SpecDecode:        specDecodeToWire(r.SpecDecode),
	}
	if len(r.Chunks) > 0 {
		w.Chunks = make([]*clusterpb.Chunk, len(r.Chunks))
		for i, c := range r.Chunks {
			w.Chunks[i] = &clusterpb.Chunk{AtNs: int64(c.At), Event: c.Event, Data: c.Data}
		}
	}
	if r.Error != nil {
		w.Error = &clusterpb.ErrorDetails{Code: int32(r.Error.Code), Type: r.Error.Type, Message: r.Error.Message}
	}
	w.RequestHeader = headersToWire(r.RequestHeader)
	return w
}

// RecordFromWire is the inverse of RecordToWire.
func RecordFromWire(w *clusterpb.Record) *record.Record {
	r := &record.Record{
		Seq:               w.Seq,
		Phase:             record.Phase(w.Phase),
		PhaseName:         w.PhaseName,
		PhaseIndex:        int(w.PhaseIndex),
		ProfilingIndex:    int(w.ProfilingIndex),
		ConversationID:    w.ConversationId,
		TurnIndex:         int(w.TurnIndex),
		XRequestID:        w.XRequestId,
		XCorrelationID:    w.XCorrelationId,
		WorkerID:          w.WorkerId,
		URLIndex:          int(w.UrlIndex),
		Model:             w.Model,
		Due:               time.Duration(w.DueNs),
		Sent:              time.Duration(w.SentNs),
		Ack:               time.Duration(w.AckNs),
		End:               time.Duration(w.EndNs),
		CancelledAt:       time.Duration(w.CancelledAtNs),
		Scheduled:         w.Scheduled,
		Status:            int(w.Status),
		Streaming:         w.Streaming,
		Cancelled:         w.Cancelled,
		ConnectionRetries: int(w.ConnectionRetries),
		StreamIncomplete:  w.StreamIncomplete,
		ContentType:       w.ContentType,
		InputTexts:        w.InputTexts,
		InputTokens:       int(w.InputTokens),
		RequestedOSL:      int(w.RequestedOsl),
		RequestBytes:      int(w.RequestBytes),
		ResponseBytes:     int(w.ResponseBytes),
		RequestBody:       w.RequestBody,
		Images:            int(w.Images),
		AudioSeconds:      w.AudioSeconds,
		CacheBustMarker:   w.CacheBustMarker,
		CacheBustTarget:   w.CacheBustTarget,
		Trace:             traceFromWire(w.Trace),
		Server:            serverFromWire(w.Server),
		SpecDecode:        specDecodeFromWire(w.SpecDecode),
	}
	if len(w.Chunks) > 0 {
		r.Chunks = make([]record.Chunk, len(w.Chunks))
		for i, c := range w.Chunks {
			r.Chunks[i] = record.Chunk{At: time.Duration(c.AtNs), Event: c.Event, Data: c.Data}
		}
	}
	if w.Error != nil {
		r.Error = &record.ErrorDetails{Code: int(w.Error.Code), Type: w.Error.Type, Message: w.Error.Message}
	}
	r.RequestHeader = headersFromWire(w.RequestHeader)
	return r
}

// serverToWire converts the server's account; nil when it gave none.
func serverToWire(s record.ServerTiming) *clusterpb.ServerTiming {
	if s == (record.ServerTiming{}) {
		return nil
	}
	return &clusterpb.ServerTiming{
		Source: int32(s.Source), Has: uint32(s.Has),
		QueueNs: int64(s.Queue), ValidationNs: int64(s.Validation), PrefillNs: int64(s.Prefill),
		DecodeNs: int64(s.Decode), InferenceNs: int64(s.Inference),
		PromptTokens: int32(s.PromptTokens), DecodedTokens: int32(s.DecodedTokens),
	}
}

// specDecodeToWire converts the speculative-decoding acceptance; nil when
// the response carried none.
func specDecodeToWire(s record.SpecDecode) *clusterpb.SpecDecode {
	if s.Engine == "" && !s.ZeroStep && s.Steps == 0 && s.Drafted == 0 && s.Accepted == 0 && len(s.Histogram) == 0 &&
		s.MeanAcceptanceLength == 0 && s.DraftAcceptanceRate == 0 {
		return nil
	}
	return &clusterpb.SpecDecode{
		Engine: s.Engine, ZeroStep: s.ZeroStep,
		MeanAcceptanceLength: s.MeanAcceptanceLength, DraftAcceptanceRate: s.DraftAcceptanceRate,
		Steps: s.Steps, Drafted: s.Drafted, Accepted: s.Accepted, Histogram: s.Histogram,
	}
}

// specDecodeFromWire is the inverse of specDecodeToWire.
func specDecodeFromWire(w *clusterpb.SpecDecode) record.SpecDecode {
	if w == nil {
		return record.SpecDecode{}
	}
	return record.SpecDecode{
		Engine: w.Engine, ZeroStep: w.ZeroStep,
		MeanAcceptanceLength: w.MeanAcceptanceLength, DraftAcceptanceRate: w.DraftAcceptanceRate,
		Steps: w.Steps, Drafted: w.Drafted, Accepted: w.Accepted, Histogram: w.Histogram,
	}
}

// serverFromWire is the inverse of serverToWire.
func serverFromWire(w *clusterpb.ServerTiming) record.ServerTiming {
	if w == nil {
		return record.ServerTiming{}
	}
	return record.ServerTiming{
		Source: record.ServerSource(w.Source), Has: record.ServerParts(w.Has),
		Queue: time.Duration(w.QueueNs), Validation: time.Duration(w.ValidationNs), Prefill: time.Duration(w.PrefillNs),
		Decode: time.Duration(w.DecodeNs), Inference: time.Duration(w.InferenceNs),
		PromptTokens: int(w.PromptTokens), DecodedTokens: int(w.DecodedTokens),
	}
}
