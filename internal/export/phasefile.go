package export

// PhaseRef is the phase a per-phase artifact describes, with the values
// phase_manifest.json lists for it.
type PhaseRef struct {
	Index          int
	ProfilingIndex *int // nil for a warmup phase
	Name           string
	Kind           string // "warmup" or "profiling"
	StartNs, EndNs int64  // the phase's own span, Unix ns
	Cancelled      bool
}

// PhaseFile wraps a phase's observability result (its server metrics or
// GPU telemetry, already JSON) as AIPerf 0.13's per-phase files hold it:
// schema version 1, the phase, the data and its warnings, every object's
// keys sorted (AIPerf writes them with orjson's OPT_SORT_KEYS).
func PhaseFile(ph PhaseRef, data []byte) ([]byte, error) {
	var w JSON
	w.Open('{')
	w.Key("data")
	w.Raw(data)
	w.Key("phase")
	w.Open('{')
	w.Key("end_ns")
	w.Int(ph.EndNs)
	w.Key("phase_index")
	w.Int(int64(ph.Index))
	w.Key("phase_kind")
	w.Str(ph.Kind)
	w.Key("phase_name")
	w.Str(ph.Name)
	w.Key("profiling_index")
	if ph.ProfilingIndex != nil {
		w.Int(int64(*ph.ProfilingIndex))
	} else {
		w.Raw([]byte("null"))
	}
	w.Key("start_ns")
	w.Int(ph.StartNs)
	w.Key("was_cancelled")
	w.Bool(ph.Cancelled)
	w.Close('}')
	w.Key("schema_version")
	w.Int(1)
	w.Key("warnings")
	w.Raw([]byte("[]"))
	w.Close('}')
	return SortKeys(w.Bytes())
}
