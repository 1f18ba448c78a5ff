package benchmark

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// compatNotes lists the AIPerf options that were given but have no effect
// here, each with the reason, so that the log says so rather than the
// option being silently ignored (docs/aiperf-compat.md has the table).
func compatNotes(cfg *config.Config) []string {
	x := &cfg.Compat
	const bus = ": AIPerf's internal ZMQ message bus; this implementation runs in one process without one"
	var notes []string
	if x.ZMQHost != "" {
		notes = append(notes, "--zmq-host has no effect"+bus)
	}
	if x.ZMQIPCPath != "" {
		notes = append(notes, "--zmq-ipc-path has no effect"+bus)
	}
	if x.ZMQDualBind {
		notes = append(notes, "--zmq-dual-bind has no effect"+bus)
	}
	if x.WorkersMax != nil {
		notes = append(notes, "--workers-max has no effect: every request in flight has its own goroutine; --concurrency and --request-rate bound the load")
	}
	if cfg.Dataset.AllowDatasetWrap && !cfg.AgenticReplay() {
		notes = append(notes, "--allow-dataset-wrap has no effect: it governs the agentic_replay timing mode; the other modes reuse conversations freely, as AIPerf's do")
	}
	if s := &cfg.Dataset.Synthesis; s.Transforms() && (cfg.Dataset.CustomType == config.DatasetWekaTrace || cfg.Dataset.CustomType == "tracelab" ||
		strings.HasPrefix(string(cfg.Dataset.ResolvedPublic()), "semianalysis_cc_traces_weka") || cfg.Dataset.ResolvedPublic() == config.PublicWekaHF) {
		notes = append(notes, "the synthesis multipliers have no effect on Weka traces, as in AIPerf (only --synthesis-max-isl and --synthesis-max-osl apply)")
	}
	if !cfg.AgenticReplay() {
		for _, f := range cfg.AgenticOnlyFlags() {
			notes = append(notes, f+" has no effect: it applies only to the agentic_replay timing mode (--scenario inferencex-agentx-mvp, or a config file's timing_mode: agentic_replay), as in AIPerf")
		}
	}
	if cfg.Shape.PrefillRamp != nil && cfg.Shape.PrefillConcurrency == nil {
		notes = append(notes, "--prefill-concurrency-ramp-duration has no effect without --prefill-concurrency (the ramp's target), as in AIPerf")
	}
	if cfg.AgenticReplay() && cfg.Shape.Replay.Speedup != nil {
		notes = append(notes, "--replay-speedup has no effect on the agentic_replay timing mode: it replays the traces' own timing")
	}
	if cfg.Conversation.InterTurnDelayCapSeconds != nil && !cfg.InterTurnDelayCapApplies() {
		notes = append(notes, "--inter-turn-delay-cap-seconds has no effect here: as in AIPerf it caps the delays of file and trace datasets (--input-file, Weka traces), not synthetic or public-dataset sessions")
	}
	if x.UnsafeOverride && x.Scenario == "" {
		notes = append(notes, "--unsafe-override has no effect without --scenario")
	}
	return notes
}
