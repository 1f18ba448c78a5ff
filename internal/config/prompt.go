package config

// Prompt holds the options of --num-prefix-prompts, --prefix-prompt-length, --shared-system-prompt-length, --user-context-prompt-length, --seq-dist, --batch-size.
//
// Owned by helper W3 (prompt shaping): fields, defaults (in Defaults via a
// defaultPrompt function), validation (a validatePrompt method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Prompt struct{}
