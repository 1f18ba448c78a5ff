package metrics

// Selection describes the run as far as metric applicability is concerned:
// the endpoint's capabilities and the relevant configuration. The zero value
// is a non-streaming endpoint that neither produces tokens nor tokenizes
// input, without SLOs.
type Selection struct {
	Streaming      bool // --streaming on a streaming-capable endpoint
	ProducesTokens bool // endpoint metadata produces_tokens
	TokenizesInput bool // endpoint metadata tokenizes_input
	SupportsAudio  bool
	SupportsImages bool
	SupportsVideos bool
	ProducesVideos bool

	// UseServerTokenCount (--use-server-token-count) disables the usage diff
	// metrics, which compare server counts with client tokenization.
	UseServerTokenCount bool
	// Goodput reports that SLOs are configured (--goodput).
	Goodput bool
	// FixedSchedule reports that a profiling phase replays a fixed schedule.
	FixedSchedule bool
	// Accuracy mode turns max_tokens into a ceiling, so OSL-mismatch metrics
	// are meaningless and dropped.
	Accuracy bool
	// Experimental includes EXPERIMENTAL metrics (AIPERF_DEV_MODE or
	// AIPERF_DEV_SHOW_EXPERIMENTAL_METRICS in AIPerf).
	Experimental bool
}

// disallowed returns the flags that exclude a metric from this run. It
// mirrors AIPerf's filter: capabilities the endpoint lacks, streaming,
// server token counts, experimental metrics, fixed-schedule-only metrics,
// goodput without SLOs and accuracy mode. INTERNAL metrics stay: others
// depend on them; exporters hide them. SUPPORTS_REASONING and HTTP_TRACE_ONLY
// are not filters in AIPerf either.
func (s Selection) disallowed() Flags {
	var f Flags
	for _, c := range []struct {
		has  bool
		flag Flags
	}{
		{s.ProducesTokens, FlagProducesTokensOnly},
		{s.TokenizesInput, FlagTokenizesInputOnly},
		{s.SupportsAudio, FlagSupportsAudioOnly},
		{s.SupportsImages, FlagSupportsImageOnly},
		{s.SupportsVideos, FlagSupportsVideoOnly},
		{s.ProducesVideos, FlagProducesVideoOnly},
		{s.Streaming, FlagStreamingOnly},
		{!s.UseServerTokenCount, FlagUsageDiffOnly},
		{s.Experimental, FlagExperimental},
		{s.FixedSchedule, FlagFixedScheduleOnly},
		{s.Goodput, FlagGoodput},
		{!s.Accuracy, FlagDisableOnAccuracy},
	} {
		if !c.has {
			f |= c.flag
		}
	}
	return f
}

// Select returns the metrics that apply to the run, in dependency order:
// every metric none of whose flags is disallowed by sel, plus, recursively,
// everything those depend on (as AIPerf's create_dependency_order_for).
func (r *Registry) Select(sel Selection) []*Metric {
	bad := sel.disallowed()
	want := make([]bool, len(r.metrics))
	var mark func(m *Metric)
	mark = func(m *Metric) {
		if want[m.idx] {
			return
		}
		want[m.idx] = true
		for _, dep := range m.Requires {
			mark(r.byTag[dep])
		}
		for _, dep := range m.Optional {
			mark(r.byTag[dep])
		}
	}
	for _, m := range r.metrics {
		if m.Flags&bad == 0 {
			mark(m)
		}
	}
	out := make([]*Metric, 0, len(r.metrics))
	for _, m := range r.metrics {
		if want[m.idx] {
			out = append(out, m)
		}
	}
	return out
}
