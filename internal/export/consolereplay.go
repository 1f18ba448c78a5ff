package export

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/metrics"
)

// replayFidelityNote reports how punctually a fixed-schedule replay sent
// its requests (replay_sched_lag_p50/_p90/_p99). AIPerf keeps these metrics
// out of its tables and only warns when the replay is degraded; a replay's
// numbers mean little without its fidelity, so it is shown on every
// fixed-schedule run, with the warning added when degraded.
func replayFidelityNote(s *metrics.Summary, _ ConsoleOptions) (note, bool) {
	p50, ok50 := valueOf(s, "replay_sched_lag_p50")
	p90, ok90 := valueOf(s, "replay_sched_lag_p90")
	p99, ok99 := valueOf(s, "replay_sched_lag_p99")
	if !ok50 || !ok90 || !ok99 {
		return note{}, false
	}
	body := fmt.Sprintf("Requests left the client this long after their trace timestamps (send time minus scheduled time): p50 %.3f ms, p90 %.3f ms, p99 %.3f ms.", p50, p90, p99)
	if d, ok := valueOf(s, "replay_sched_degraded"); ok && d != 0 {
		body += fmt.Sprintf("\n\nThe replay is DEGRADED (p99 above %g ms): the client could not keep up with the trace, so latencies and concurrency no longer reflect the recorded arrival process. Lower the load, raise --concurrency, or use a faster client machine.", metrics.ReplayDegradedThresholdMS)
	}
	return note{title: "Replay Schedule Fidelity", body: body}, true
}
