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
package timing
