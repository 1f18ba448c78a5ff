package cli

import (
	"os"

	"github.com/aiperf-go/aiperf/internal/config"
)

// groupUserCentric is AIPerf's help panel of the user-centric flags.
const groupUserCentric = "User-Centric Rate"

// addLoadShapeFlags registers the load-shape flags bound to cfg.Shape:
// the rest of AIPerf's Load Generator group, the warmup's own
// load (Warmup), the User-Centric Rate group and the trace-replay pacing
// flags of Conversation Input.
func (b *flagBuilder) addLoadShapeFlags(cfg *config.Config) {
	s := &cfg.Shape
	b.group = groupLoad
	b.add(&intPtrValue{recorder: b.rec("prefill-concurrency"), p: &s.PrefillConcurrency, magic: true}, spec{
		name: "prefill-concurrency", meta: "<n>",
		usage: "At most this many requests in prefill at once: a request holds a prefill slot from send until its first streamed token (requires --streaming; at most --concurrency).",
	})
	b.add(&rampValue{recorder: b.rec("concurrency-ramp-duration"), p: &s.ConcurrencyRamp}, spec{
		name: "concurrency-ramp-duration", meta: "<seconds>",
		usage: "Raise the concurrency from 1 to --concurrency one step at a time over this many seconds (linear; a config file's concurrency_ramp can pick exponential or poisson).",
	})
	b.add(&rampValue{recorder: b.rec("prefill-concurrency-ramp-duration"), p: &s.PrefillRamp}, spec{
		name: "prefill-concurrency-ramp-duration", meta: "<seconds>",
		usage: "Raise the prefill concurrency from 1 to --prefill-concurrency over this many seconds.",
	})
	b.add(&rampValue{recorder: b.rec("request-rate-ramp-duration"), p: &s.RateRamp}, spec{
		name: "request-rate-ramp-duration", meta: "<seconds>",
		usage: "Raise the request rate from rate x 0.1 s / duration to the target over this many seconds, updated every 0.1 s.",
	})
	b.add(&rateSeriesValue{recorder: b.rec("request-rate-series"), s: s}, spec{
		name: "request-rate-series", meta: "<json file>",
		usage: "Follow a piecewise-linear request rate: a JSON file of [{\"time_s\": 0, \"qps\": 5}, {\"time_s\": 60, \"qps\": 20}, ...] (or {\"points\": [...]}); the rate is updated every 0.1 s and stays at the last point's. Replaces --request-rate; after --request-rate-ramp-duration when both are given.",
	})
	b.add(&floatPtrValue{recorder: b.rec("trajectory-start-min-ratio"), p: &s.TrajectoryStartMinRatio}, spec{
		name: "trajectory-start-min-ratio", meta: "<fraction>", def: "0.25",
		usage: "Agentic replay: earliest random start position within each trajectory, as a fraction of its duration.",
	})
	b.add(&floatPtrValue{recorder: b.rec("trajectory-start-max-ratio"), p: &s.TrajectoryStartMaxRatio}, spec{
		name: "trajectory-start-max-ratio", meta: "<fraction>", def: "0.75",
		usage: "Agentic replay: latest random start position within each trajectory, as a fraction of its duration.",
	})
	b.add(&boolValue{recorder: b.rec("burst-phase-starts"), p: &s.BurstPhaseStarts}, spec{
		name:  "burst-phase-starts",
		usage: "Agentic replay: fire each phase's first requests together instead of spreading them by their recorded offsets.",
	})
	b.add(&floatPtrValue{recorder: b.rec("trace-idle-gap-cap-seconds"), p: &s.TraceIdleGapCapSeconds}, spec{
		name: "trace-idle-gap-cap-seconds", meta: "<seconds>",
		usage: "Trace replay: compress every gap between consecutive requests within one trace (conversation) to at most this many seconds, inter-turn delays included. Agentic replay: compresses each Weka trace's timeline (main agent and subagents together), bounds how early before t* a warmup request goes and the idle before a lane's first profiling request.",
	})
	b.add(&floatPtrValue{recorder: b.rec("system-idle-gap-cap-seconds"), p: &s.SystemIdleGapCapSeconds}, spec{
		name: "system-idle-gap-cap-seconds", meta: "<seconds>",
		usage: "Agentic replay: never let the replay sit idle (nothing in flight) for longer than this: pending turn timers move earlier together so the next request goes out within the cap.",
	})

	w := &s.Warmup
	b.group = groupWarmup
	b.add(&intPtrValue{recorder: b.rec("warmup-concurrency"), p: &w.Concurrency}, spec{
		name: "warmup-concurrency", meta: "<n>", def: "--concurrency",
		usage: "Concurrency of the warmup phase.",
	})
	b.add(&intPtrValue{recorder: b.rec("warmup-prefill-concurrency"), p: &w.PrefillConcurrency}, spec{
		name: "warmup-prefill-concurrency", meta: "<n>", def: "--prefill-concurrency",
		usage: "Prefill concurrency of the warmup phase.",
	})
	b.add(&floatPtrValue{recorder: b.rec("warmup-request-rate"), p: &w.RequestRate}, spec{
		name: "warmup-request-rate", meta: "<per-second>", def: "--request-rate",
		usage: "Request rate of the warmup phase.",
	})
	b.add(&choiceValue[config.ArrivalPattern]{recorder: b.rec("warmup-arrival-pattern"), p: &w.ArrivalPattern, normalize: normalizeChoice[config.ArrivalPattern]}, spec{
		name: "warmup-arrival-pattern", meta: "<pattern>", def: "--arrival-pattern",
		choices: []string{string(config.ArrivalConstant), string(config.ArrivalGamma), string(config.ArrivalPoisson)},
		usage:   "Arrival pattern of the warmup phase's request rate.",
	})
	b.add(&secondsPtrValue{recorder: b.rec("warmup-grace-period"), p: &w.GracePeriod}, spec{
		name: "warmup-grace-period", meta: "<seconds>", def: "inf",
		usage: "How long to wait for warmup responses after --warmup-duration (which it requires) before cancelling them.",
	})
	b.add(&rampValue{recorder: b.rec("warmup-concurrency-ramp-duration"), p: &w.ConcurrencyRamp}, spec{
		name: "warmup-concurrency-ramp-duration", meta: "<seconds>", def: "--concurrency-ramp-duration",
		usage: "Ramp the warmup concurrency from 1 to its target over this many seconds.",
	})
	b.add(&rampValue{recorder: b.rec("warmup-prefill-concurrency-ramp-duration"), p: &w.PrefillRamp}, spec{
		name: "warmup-prefill-concurrency-ramp-duration", meta: "<seconds>", def: "--prefill-concurrency-ramp-duration",
		usage: "Ramp the warmup prefill concurrency from 1 to its target over this many seconds.",
	})
	b.add(&rampValue{recorder: b.rec("warmup-request-rate-ramp-duration"), p: &w.RateRamp}, spec{
		name: "warmup-request-rate-ramp-duration", meta: "<seconds>", def: "--request-rate-ramp-duration",
		usage: "Ramp the warmup request rate to its target over this many seconds (needs --warmup-request-rate or --request-rate).",
	})
	b.add(&floatPtrValue{recorder: b.rec("agentic-cache-warmup-duration"), p: &s.AgenticCacheWarmup}, spec{
		name: "agentic-cache-warmup-duration", meta: "<seconds>",
		usage: "Agentic replay: after the warmup drains, keep the trajectories running with one-token outputs and no idle delays for this long to fill the server's cache.",
	})
	b.add(&floatPtrValue{recorder: b.rec("agentic-warmup-grace-period"), p: &s.AgenticWarmupGracePeriod}, spec{
		name: "agentic-warmup-grace-period", meta: "<seconds>",
		usage: "Agentic replay: how long the warmup barrier waits for in-flight priming requests (default: for all).",
	})

	b.group = groupUserCentric
	b.add(&floatPtrValue{recorder: b.rec("user-centric-rate"), p: &s.UserCentricRate}, spec{
		name: "user-centric-rate", meta: "<qps>",
		usage: "Simulate --num-users users sharing this many requests per second: each user sends its next turn num-users/qps seconds after its previous one (at once when the answer came later), and finished users are replaced so the run is in steady state from the start. Needs multi-turn sessions.",
	})
	b.add(&intPtrValue{recorder: b.rec("num-users"), p: &s.NumUsers, magic: true}, spec{
		name: "num-users", meta: "<n>",
		usage: "Number of users for --user-centric-rate. Set --concurrency >= num-users to avoid capping them.",
	})

	r := &s.Replay
	b.group = groupConv
	b.add(&floatPtrValue{recorder: b.rec("max-idle-gap-cap-seconds"), p: &r.MaxIdleGapCapSeconds}, spec{
		name: "max-idle-gap-cap-seconds", meta: "<seconds>",
		usage: "baseten_trace replay: collapse idle gaps between consecutive requests (across all sessions, after --replay-speedup) to at most this many seconds.",
	})
	b.add(&floatPtrValue{recorder: b.rec("replay-speedup"), p: &r.Speedup}, spec{
		name: "replay-speedup", meta: "<factor>",
		usage: "Trace replay (any timestamped trace): divide every timestamp and inter-turn delay by this factor (10 = ten times faster than recorded).",
	})
	b.addInvertedPair(&r.ClosedLoop, "open-loop-replay",
		"baseten_trace replay: send each later turn at its recorded timestamp (or when the previous turn finishes, if later). --no-open-loop-replay sends it its recorded think time after the previous response instead.")
	b.add(&boolValue{recorder: b.rec("open-loop-strict"), p: &r.Strict}, spec{
		name:  "open-loop-strict",
		usage: "baseten_trace replay: send every trace row as its own single-turn session at its recorded timestamp.",
	})
	b.add(&boolValue{recorder: b.rec("omit-kv-hints"), p: &r.OmitKVHints}, spec{
		name:  "omit-kv-hints",
		usage: "baseten_trace replay: drop recorded KV-cache hints (hash_ids, block_size) from the request bodies.",
	})
	b.addInvertedPair(&r.NoForceMinTokens, "force-min-tokens",
		"baseten_trace replay: pin min_tokens to each row's recorded output length. --no-force-min-tokens lets generations end at EOS.")
}

// addInvertedPair registers --name (default on) and --no-name for an
// option stored as its negation: --no-name sets *off, --name clears it.
func (b *flagBuilder) addInvertedPair(off *bool, name, usage string) {
	f := b.add(&negBoolValue{boolValue{recorder: b.rec(name), p: off}}, spec{name: name, def: "true", usage: usage})
	f.NoOptDefVal = "true"
	g := b.add(&boolValue{recorder: b.rec("no-" + name), p: off}, spec{name: "no-" + name, usage: "Opposite of --" + name + "."})
	g.NoOptDefVal = "true"
}

// rampValue sets a ramp's duration; the strategy stays linear (only a
// config file chooses another).
type rampValue struct {
	recorder
	p **config.Ramp
}

func (v *rampValue) Set(s string) error {
	f, err := config.ParseFloat(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = &config.Ramp{Duration: f}
	return nil
}

func (v *rampValue) String() string {
	if *v.p == nil {
		return ""
	}
	return formatFloat((*v.p).Duration)
}
func (v *rampValue) Type() string { return "seconds" }

// rateSeriesValue reads a --request-rate-series JSON file into the
// configuration at once, so a bad file is reported with the other flag
// problems, before anything runs.
type rateSeriesValue struct {
	recorder
	s *config.LoadShape
}

func (v *rateSeriesValue) Set(path string) error {
	pts, err := readRateSeries(path)
	if err != nil {
		v.fail(err)
		return nil
	}
	v.s.RateSeries, v.s.RateSeriesFile = pts, path
	return nil
}

func (v *rateSeriesValue) String() string { return v.s.RateSeriesFile }
func (v *rateSeriesValue) Type() string   { return "file" }

// readRateSeries reads a rate series file: a JSON array of
// {time_s, qps} points or an object {"points": [...]}, unknown keys
// rejected. Point checks are config.Validate's.
func readRateSeries(path string) ([]config.RatePoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return config.ParseRateSeries(b, path)
}
