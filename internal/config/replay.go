package config

// Replay holds the options of --fixed-schedule, --no-fixed-schedule, --fixed-schedule-auto-offset, --fixed-schedule-start-offset, --fixed-schedule-end-offset.
//
// Owned by helper W2 (fixed schedule / trace replay): fields, defaults (in Defaults via a
// defaultReplay function), validation (a validateReplay method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Replay struct{}
