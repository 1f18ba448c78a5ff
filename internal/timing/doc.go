// Package timing decides when each request of a benchmark phase is due and
// hands out one credit per request at that moment.
//
// It has three layers, each usable on its own:
//
//   - Arrivals: pure due-time math (constant, Poisson, gamma). An Arrivals
//     yields offsets from the phase start and never touches a clock, so it is
//     table-tested exactly.
//   - Sleeper: waits until an absolute run-clock offset. Coarse waits on one
//     reused timer; Precise adds a short spin at the end, because Go timers on
//     Linux wake 0.5-1 ms late (the netpoller sleeps in whole milliseconds).
//   - Scheduler: one goroutine, absolute deadlines measured from one start,
//     an optional concurrency gate released by Done, and stop conditions
//     (count, duration, context).
//
// Every due time is an absolute offset on the run clock (internal/clock), so
// a late wake-up never shifts later requests: when the scheduler falls
// behind it issues immediately and catches up. A credit that has to wait for
// a concurrency slot keeps the Due it was scheduled for, so the wait shows
// up downstream as Sent-Due lateness instead of being hidden (coordinated
// omission made visible).
//
// Catch-up rule. When the scheduler wakes late (a stall of S), every credit
// whose due time has passed goes out at once, back to back, in Seq order,
// each with its own scheduled Due; nothing is skipped or rescheduled. The
// burst is therefore bounded by the stall: at most S·rate+1 credits, and no
// more than the free concurrency slots when a cap is set (the rest wait for
// slots and count in Stats.Waited). After it the schedule resumes on its
// original grid, so lateness never accumulates and the mean rate is exact.
// At 1,000 requests/s a 50 ms stall sends 51 credits at the wake-up, late
// by 50 ms down to 0 (TestSchedulerCatchUpAfterStall).
//
// Trace replay. Replay turns a trace's first-turn timestamps into a fixed
// schedule (window, auto-offset and zero as AIPerf's fixed_schedule
// strategy); Fixed replays it with the same absolute deadlines and
// catch-up rule, so the send error of each request is its Sent - Due.
package timing
