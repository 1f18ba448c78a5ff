// Package configfile reads AIPerf config v2 YAML files (`aiperf profile
// -f file.yaml`) into a config.Config, and expands their sweeps into
// config.Variations.
//
// Loading runs in AIPerf's order: YAML (goccy/go-yaml, positions kept),
// camelCase keys to snake_case, ${VAR} / ${VAR:default} environment
// substitution, shorthand normalisation (model, dataset, url, warmup /
// profiling, a single phase mapping), then, per variation, Jinja {{ }}
// templates over `variables:` (ardanlabs/jinja) and decoding onto a
// configuration. Every problem found is reported at once, each a *Problem
// with the file's line and column and, for unknown keys, a "did you
// mean" hint.
//
// One table (fields.go) maps each config-file key to a Config field and
// to the `aiperf profile` flag that sets the same field. Decoding, CLI
// overrides of the envelope (File.Override) and the JSON Schema (Schema)
// are all derived from it, so supporting an option is one row.
//
// The envelope invariant (AIPerf's "config-file override envelope
// invariant"): a File keeps the envelope before templates are rendered,
// and every configuration - the base one and each sweep variation's - is
// rendered from it. CLI overrides are written into that envelope, so a
// variation that re-renders a templated field still gets the CLI value.
//
// The package imports only internal/config and the userfile leaf.
package configfile
