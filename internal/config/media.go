package config

// Media holds the options of --image-*, --audio-*.
//
// Owned by helper W4 (synthetic images and audio): fields, defaults (in Defaults via a
// defaultMedia function), validation (a validateMedia method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Media struct{}
