package configfile

// Starter is the commented config file `aiperf config init` writes. It
// validates as is (a test checks) and benchmarks a local OpenAI-compatible
// server at concurrency 8, then at 16 and 32.
const Starter = `# aiperf config v2 - run it with:  aiperf profile -f aiperf.yaml
# Flags given on the command line override the values below.
# Check it with 'aiperf config validate aiperf.yaml' and list the runs a sweep
# makes with 'aiperf config expand aiperf.yaml'. Keys may be snake_case or camelCase.
schemaVersion: "2.0"

# Seed of the synthetic prompts: the same seed sends the same prompts.
# Sweep variation i uses random_seed + i (set sweep.same_seed to keep one seed).
random_seed: 42

# Values for {{ templates }} below; they may refer to each other. ${VAR} and
# ${VAR:default} read environment variables first.
variables:
  base_concurrency: 8

benchmark:
  # The model name sent in requests; also the tokenizer unless tokenizer: is set.
  model: ${MODEL:Qwen/Qwen3-0.6B}

  endpoint:
    url: ${AIPERF_URL:http://localhost:8000}
    type: chat            # chat or completions
    streaming: true       # needed for time to first token and inter-token latency
    # api_key: ${OPENAI_API_KEY}

  dataset:
    type: synthetic
    entries: 100          # distinct prompts; requests cycle through them
    prompts:
      isl: {mean: 550, stddev: 0}   # input tokens; a plain number is a fixed length
      osl: 256                      # output tokens requested (max_completion_tokens)

  tokenizer:
    name: builtin         # counts tokens offline; name your model's (e.g. Qwen/Qwen3-0.6B) for exact counts

  warmup:                 # not measured
    type: concurrency
    concurrency: "{{ base_concurrency }}"
    requests: 10
  profiling:
    type: concurrency     # or poisson / gamma / constant with rate:
    concurrency: "{{ base_concurrency }}"
    requests: 200
    # duration: 60s       # stop after a time instead (or as well)

  # Goodput: a request is good when it meets every threshold (ms for latencies).
  slos:
    time_to_first_token: 500
    inter_token_latency: 50

  artifacts:
    dir: artifacts/starter

# One run per value; grid takes every combination, zip pairs the lists.
sweep:
  type: grid
  parameters:
    concurrency: [8, 16, 32]   # bare name = phases.profiling.concurrency

# Repeat each variation to get confidence intervals across runs.
multi_run:
  num_runs: 1
  confidence_level: 0.95
`
