// Package arrowcheck holds a test only: it reads the server-metrics parquet
// file back with Apache Arrow's own Go implementation
// (github.com/apache/arrow-go, a test-only dependency kept out of every
// other package's test binary because it is large), which cross-checks
// the file against an independent parquet reader and AIPerf 0.13's
// schema.
package arrowcheck
