package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
)

// AnalyzeTrace computes the statistics `aiperf analyze-trace` prints for
// the mooncake trace at path (blockSize 0 means 512). Input problems are
// usage errors.
func AnalyzeTrace(path string, blockSize int) (*loader.TraceStats, error) {
	s, err := loader.AnalyzeTrace(path, blockSize)
	if err != nil {
		return nil, usageError(err)
	}
	return s, nil
}

// TraceStats is the result of AnalyzeTrace (see dataset.TraceStats).
type TraceStats = loader.TraceStats

// TraceDist is one distribution of a TraceStats.
type TraceDist = loader.Dist
