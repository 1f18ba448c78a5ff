package experiment

// statKeys are the per-metric statistics that multi-run aggregation
// combines, in AIPerf's order (STAT_KEYS).
var statKeys = []string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// percentileKeys are the percentile statistics a single-trial sweep cell
// carries through.
var percentileKeys = []string{"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}
