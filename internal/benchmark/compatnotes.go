package benchmark

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// busNote ends the notes on AIPerf's message-bus options.
const busNote = ": AIPerf's internal ZMQ message bus; this implementation runs in one process without one"

// compatRules are the AIPerf options that can be given but have no effect
// here: each with when it was given to no effect, and why.
var compatRules = []struct {
	given func(cfg *config.Config) bool
	note  string
}{
	{func(c *config.Config) bool { return c.Compat.ZMQHost != "" }, "--zmq-host has no effect" + busNote},
	{func(c *config.Config) bool { return c.Compat.ZMQIPCPath != "" }, "--zmq-ipc-path has no effect" + busNote},
	{func(c *config.Config) bool { return c.Compat.ZMQDualBind }, "--zmq-dual-bind has no effect" + busNote},
	{func(c *config.Config) bool { return c.Compat.WorkersMax != nil },
		"--workers-max has no effect: every request in flight has its own goroutine; --concurrency and --request-rate bound the load"},
	{func(c *config.Config) bool { return c.Dataset.AllowDatasetWrap && !c.AgenticReplay() },
		"--allow-dataset-wrap has no effect: it governs the agentic_replay timing mode; the other modes reuse conversations freely, as AIPerf's do"},
	{synthesisOnWeka,
		"the synthesis multipliers have no effect on Weka traces, as in AIPerf (only --synthesis-max-isl and --synthesis-max-osl apply)"},
	{nil, ""}, // the agentic-only flags given to another mode: agenticOnlyNotes
	{func(c *config.Config) bool { return c.Shape.PrefillRamp != nil && c.Shape.PrefillConcurrency == nil },
		"--prefill-concurrency-ramp-duration has no effect without --prefill-concurrency (the ramp's target), as in AIPerf"},
	{func(c *config.Config) bool { return c.AgenticReplay() && c.Shape.Replay.Speedup != nil },
		"--replay-speedup has no effect on the agentic_replay timing mode: it replays the traces' own timing"},
	{func(c *config.Config) bool {
		return c.Conversation.InterTurnDelayCapSeconds != nil && !c.InterTurnDelayCapApplies()
	}, "--inter-turn-delay-cap-seconds has no effect here: as in AIPerf it caps the delays of file and trace datasets (--input-file, Weka traces), not synthetic or public-dataset sessions"},
	{func(c *config.Config) bool { return c.Compat.UnsafeOverride && c.Compat.Scenario == "" },
		"--unsafe-override has no effect without --scenario"},
}

// synthesisOnWeka reports synthesis multipliers given for a Weka trace,
// which (as in AIPerf) only the max-length caps apply to.
func synthesisOnWeka(c *config.Config) bool {
	d := &c.Dataset
	pub := string(d.ResolvedPublic())
	weka := d.CustomType == config.DatasetWekaTrace || d.CustomType == "tracelab" ||
		strings.HasPrefix(pub, "semianalysis_cc_traces_weka") || d.ResolvedPublic() == config.PublicWekaHF
	return d.Synthesis.Transforms() && weka
}

// agenticOnlyNotes names each agentic_replay option given to another mode.
func agenticOnlyNotes(c *config.Config) []string {
	if c.AgenticReplay() {
		return nil
	}
	var notes []string
	for _, f := range c.AgenticOnlyFlags() {
		notes = append(notes, f+" has no effect: it applies only to the agentic_replay timing mode (--scenario inferencex-agentx-mvp, or a config file's timing_mode: agentic_replay), as in AIPerf")
	}
	return notes
}

// compatNotes lists the AIPerf options that were given but have no effect
// here, each with the reason, so that the log says so rather than the
// option being silently ignored (docs/aiperf-compat.md has the table).
func compatNotes(cfg *config.Config) []string {
	var notes []string
	for _, r := range compatRules {
		switch {
		case r.given == nil:
			notes = append(notes, agenticOnlyNotes(cfg)...)
		case r.given(cfg):
			notes = append(notes, r.note)
		}
	}
	return notes
}
