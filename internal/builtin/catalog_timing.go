package builtin

import "github.com/aiperf-go/aiperf/internal/plugin"

// Timing categories.
var (
	categoryTimingStrategy = plugin.Category{Name: "timing_strategy", Description: "Timing strategies decide when credits " +
		"(requests) are issued. One per run."}
	categoryArrivalPattern = plugin.Category{Name: "arrival_pattern", Description: "Arrival patterns space requests in " +
		"request-rate mode (--arrival-pattern). One per run."}
	categoryRamp = plugin.Category{Name: "ramp", Description: "Ramps raise concurrency or rate over time."}
)

func timingStrategyEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("fixed_schedule", "Replays the dataset's timestamps on absolute deadlines (--fixed-schedule)."),
		entry("request_rate", "Requests at --request-rate on absolute deadlines, or as fast as --concurrency allows."),
		entry("agentic_replay", "Weka agent traces replayed from sampled mid-trace starts, one lane per --concurrency, after a one-token cache-priming warmup; subagents spawn and join as recorded (--scenario inferencex-agentx-mvp or config timing_mode: agentic_replay)."),
		entry("adaptive_scale", "Moves concurrency, prefill concurrency or the request rate online while SLA windows pass, then holds the last passing value (config adaptive_scale:)."),
		entry("user_centric_rate", "--num-users users sharing --user-centric-rate, one turn per user every users/rate seconds, with a virtual history."),
	}
}

func arrivalPatternEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("concurrency_burst", "No rate: a new request as soon as one finishes, up to --concurrency."),
		entry("constant", "Evenly spaced arrivals."),
		entry("gamma", "Gamma-distributed gaps; --arrival-smoothness sets the shape (1 = poisson)."),
		entry("poisson", "Exponentially distributed gaps (a Poisson process)."),
	}
}

func rampEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("exponential", "Ease-in: value progress is time progress squared."),
		entry("linear", "Constant speed: one unit per duration/(target-start)."),
		entry("poisson", "Steps at the events of a seeded Poisson process, stretched to end on time."),
	}
}
