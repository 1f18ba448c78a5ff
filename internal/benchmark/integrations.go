package benchmark

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
)

// observeRecord hands one processed record to the run's record observers
// (IO.Records) as a live.Record. It runs on the consumer, after the record
// is scrubbed; the pipeline has no such sink when there is no observer.
func observeRecord(observers []live.RecordObserver, p *metrics.Processed) {
	lr := liveRecord(p)
	for _, o := range observers {
		o.ObserveRecord(lr)
	}
}

// liveRecord converts a processed record to plain values.
func liveRecord(p *metrics.Processed) *live.Record {
	rec := p.Record
	lr := &live.Record{
		Phase:          rec.Phase.String(),
		ConversationID: rec.ConversationID,
		TurnIndex:      rec.TurnIndex,
		XRequestID:     rec.XRequestID,
		WorkerID:       rec.WorkerID,
		ProcessorID:    p.ProcessorID,
		Model:          rec.Model,
		Valid:          p.Valid,
		Cancelled:      rec.Cancelled,
		Start:          time.Unix(0, p.StartNs),
		End:            time.Unix(0, p.EndNs),
		Output:         p.OutputText,
		Metrics:        make([]live.RecordMetric, 0, len(p.Values)),
	}
	if e := rec.Error; e != nil {
		lr.Error = &live.RecordError{Code: e.Code, Type: e.Type, Message: e.Message}
	}
	for _, v := range p.Values {
		m := v.Metric
		unit := m.DisplayUnit
		if unit == "" {
			unit = m.Unit
		}
		lm := live.RecordMetric{Tag: m.Tag, Unit: string(unit), Value: v.Scalar}
		if m.List {
			lm.List = v.List
		}
		lr.Metrics = append(lr.Metrics, lm)
	}
	return lr
}
