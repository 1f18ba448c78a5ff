// Package api is the run's HTTP API (--api-port, --api-host): AIPerf's
// routes over the live state of one benchmark, so a CI job, a dashboard
// or a Kubernetes probe can follow it while it runs and fetch its results
// when it ends.
//
//	GET /healthz, /readyz           liveness; readiness once the run started
//	GET /api/config                 the run's configuration (secrets redacted)
//	GET /api/run                    run identity: benchmark_id, cli_command, seed, ...
//	GET /api/progress               per-phase progress, AIPerf's ProgressResponse shape
//	GET /api/workers                per-worker request counts
//	GET /api/metrics                headline metrics (JSON), final metrics after the run
//	GET /metrics                    the same in Prometheus text format
//	GET /api/results                status (running, complete, cancelled, failed) and results
//	GET /api/results/list           the artifact files, once they are written
//	GET /api/results/files/{name}   one artifact file
//	GET /ws                         WebSocket: subscribe to progress messages
//
// The server watches the run as a live.Observer (progress, headline
// metrics, health) and a live.RecordObserver (per-worker counts); the
// command that runs the benchmark calls Finish once the artifacts are
// written. It uses only the standard library: the WebSocket side is a
// small RFC 6455 server (ws.go).
//
// Nothing it serves carries a credential: the configuration and the run's
// command line arrive redacted, and every response body is scrubbed of
// the run's secrets once more before it is written.
package api
