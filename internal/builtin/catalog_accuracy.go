package builtin

import "github.com/aiperf-go/aiperf/internal/plugin"

// Accuracy categories (issue 21 adds to them).
var (
	categoryAccuracyBenchmark = plugin.Category{Name: "accuracy_benchmark", Description: "Accuracy benchmarks: the " +
		"question sets of accuracy mode."}
	categoryAccuracyGrader = plugin.Category{Name: "accuracy_grader", Description: "Accuracy graders score answers."}
)

func accuracyBenchmarkEntries() []plugin.Entry { return nil }

func accuracyGraderEntries() []plugin.Entry { return nil }
