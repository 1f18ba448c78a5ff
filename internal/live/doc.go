// Package live carries the state of a running benchmark to whatever watches
// it while it runs: the terminal views (internal/ui: dashboard, simple,
// none) and the live integrations (an HTTP progress API, OTel or W&B live
// metrics). It is a leaf: it imports only the standard library, so every
// consumer can depend on it and none needs the run's internals.
//
// The run publishes; observers read. Three roles, each with one writer, so
// the record path takes no lock:
//
//   - Meter: the run's record consumer (one goroutine) adds each finished
//     request's headline values to the current time bucket and rolls the
//     bucket once per Meter width. A rolled Bucket is immutable and is
//     published with an atomic store, so readers never block the consumer.
//   - Board: slow producers (telemetry scrapers, the logger) post panels
//     and log lines from any goroutine, a few times a second, under a mutex
//     that the record path never takes.
//   - the publisher (in internal/benchmark) builds a Snapshot from the
//     phase counters, the Meter and the Board on every tick and hands the
//     same *Snapshot to each Observer in turn, from one goroutine. A
//     Snapshot is never modified after it is published: observers may keep
//     it, and must not change it.
//
// The last Snapshot of a run has Final set; it is always delivered, also
// when the run fails or is interrupted, so observers can release terminals,
// connections and files on it.
package live
