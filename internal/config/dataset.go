package config

// Dataset holds the options of --input-file, --custom-dataset-type, --public-dataset, --isl-block-size, --dataset-sampling-strategy.
//
// Owned by helper W1 (custom datasets, public datasets, sampling): fields, defaults (in Defaults via a
// defaultDataset function), validation (a validateDataset method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Dataset struct{}
