package environ

// Vars is every environment variable aiperf reads, with AIPerf's names
// where AIPerf has the variable. Values are read where they are used,
// through Getenv/LookupEnv or an injected getenv; this table is what they
// mean.
var Vars = []Var{
	// HTTP client (AIPerf's AIPERF_HTTP_* settings).
	{Name: "AIPERF_HTTP_CLIENT", Default: "lean", Meaning: "HTTP engine when --http-client is not given: lean or net/http", Users: "config"},
	{Name: "AIPERF_HTTP_SSL_VERIFY", Default: "true", Meaning: "false skips TLS certificate verification (as --tls-skip-verify)", Users: "config"},
	{Name: "AIPERF_HTTP_TRUST_ENV", Default: "false", Meaning: "true sends requests through the proxy variables (as --trust-env)", Users: "config, benchmark"},
	{Name: "AIPERF_HTTP_CONNECTION_LIMIT", Default: "2500", Meaning: "most connections open at once, 1-65000; request-rate phases without --concurrency are held to it", Users: "benchmark"},
	{Name: "AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES", Default: "10485760 (10 MiB)", Meaning: "largest response head (status line and headers) accepted before the request fails, as --http-max-response-header-bytes", Users: "config"},
	{Name: "AIPERF_HTTP_VIDEO_POLL_INTERVAL", Default: "0.1", Meaning: "seconds between status polls of a video generation job, 0.001 to 10", Users: "benchmark"},
	{Name: "AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID", Default: "false", Meaning: "true sends X-Session-ID with the conversation's correlation id", Users: "benchmark"},
	{Name: "AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID", Default: "true", Meaning: "sends X-Session-Affinity with the conversation's correlation id", Users: "benchmark"},
	{Name: "AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID", Default: "false", Meaning: "true sends X-SMG-Routing-Key with the conversation's correlation id", Users: "benchmark"},
	{Name: "AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID", Default: "false", Meaning: "true sends X-Dynamo-Session-ID with the conversation's correlation id", Users: "benchmark"},
	{Name: "AIPERF_HTTP_KEEPALIVE_TIMEOUT", Meaning: "AIPerf's; not supported, warned about when set (idle connections are kept 90 s)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_SO_RCVBUF", Meaning: "AIPerf's; not supported, warned about when set (the kernel sizes socket buffers)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_SO_SNDBUF", Meaning: "AIPerf's; not supported, warned about when set (the kernel sizes socket buffers)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_SO_RCVTIMEO", Meaning: "AIPerf's; not supported, warned about when set (--request-timeout-seconds bounds each request)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_SO_SNDTIMEO", Meaning: "AIPerf's; not supported, warned about when set (--request-timeout-seconds bounds each request)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_TCP_KEEPCNT", Meaning: "AIPerf's; not supported, warned about when set (keep-alive probes every 30 s after 30 s idle)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_TCP_KEEPIDLE", Meaning: "AIPerf's; not supported, warned about when set (keep-alive probes every 30 s after 30 s idle)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_TCP_KEEPINTVL", Meaning: "AIPerf's; not supported, warned about when set (keep-alive probes every 30 s after 30 s idle)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_TCP_USER_TIMEOUT", Meaning: "AIPerf's; not supported, warned about when set (the kernel's default applies)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_TTL_DNS_CACHE", Meaning: "AIPerf's; not supported, warned about when set (no DNS cache: each new connection resolves)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_USE_DNS_CACHE", Meaning: "AIPerf's; not supported, warned about when set (no DNS cache: each new connection resolves)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_FORCE_CLOSE", Meaning: "AIPerf's; not supported, warned about when set (use --connection-reuse-strategy never)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_ENABLE_CLEANUP_CLOSED", Meaning: "AIPerf's; not supported, warned about when set (closed connections are always released)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_REQUEST_CANCELLATION_SEND_TIMEOUT", Meaning: "AIPerf's; not supported, warned about when set (--request-timeout-seconds bounds a cancelled request)", Users: "benchmark"},
	{Name: "AIPERF_HTTP_IP_VERSION", Meaning: "AIPerf's; not supported, warned about when set (IPv4 and IPv6 are raced)", Users: "benchmark"},
	{Name: "HTTP_PROXY", Meaning: "proxy for http:// URLs, used with --trust-env (http_proxy too)", Users: "transport, benchmark"},
	{Name: "http_proxy", Meaning: "as HTTP_PROXY", Users: "transport, benchmark"},
	{Name: "HTTPS_PROXY", Meaning: "proxy for https:// URLs, used with --trust-env (https_proxy too)", Users: "transport, benchmark"},
	{Name: "https_proxy", Meaning: "as HTTPS_PROXY", Users: "transport, benchmark"},
	{Name: "ALL_PROXY", Meaning: "proxy for any URL without its own, used with --trust-env (all_proxy too)", Users: "transport, benchmark"},
	{Name: "all_proxy", Meaning: "as ALL_PROXY", Users: "transport, benchmark"},
	{Name: "NO_PROXY", Meaning: "hosts reached directly despite a proxy (no_proxy too)", Users: "transport"},
	{Name: "no_proxy", Meaning: "as NO_PROXY", Users: "transport"},

	// Telemetry (AIPerf's names, seconds).
	{Name: "AIPERF_SERVER_METRICS_COLLECTION_INTERVAL", Default: "0.333", Meaning: "seconds between scrapes of the server's Prometheus metrics", Users: "benchmark"},
	{Name: "AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD", Default: "2", Meaning: "seconds the server metrics are still scraped after the last request", Users: "benchmark"},
	{Name: "AIPERF_SERVER_METRICS_REACHABILITY_TIMEOUT", Default: "10", Meaning: "seconds to wait for a server metrics endpoint to answer before it is dropped", Users: "benchmark"},
	{Name: "AIPERF_GPU_COLLECTION_INTERVAL", Default: "0.333", Meaning: "seconds between GPU telemetry samples", Users: "benchmark"},
	{Name: "AIPERF_GPU_REACHABILITY_TIMEOUT", Default: "5", Meaning: "seconds to wait for a DCGM exporter to answer before it is dropped", Users: "benchmark"},
	{Name: "AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS", Default: "localhost:9400 and :9401", Meaning: "DCGM exporters tried without being asked (JSON list or commas); set and empty means none", Users: "benchmark"},

	// Metrics.
	{Name: "AIPERF_METRICS_LIST_EXACT_LIMIT", Default: "1000000", Meaning: "values a list metric (inter_chunk_latency) keeps exactly before a t-digest takes over; -1 keeps all", Users: "benchmark"},
	{Name: "AIPERF_METRICS_RECORD_EXACT_LIMIT", Default: "0 (no limit)", Meaning: "records a scalar metric keeps exactly before a t-digest takes over", Users: "benchmark"},
	{Name: "AIPERF_METRICS_TDIGEST_COMPRESSION", Default: "500", Meaning: "the t-digest compression, 20 to 10000", Users: "benchmark"},

	// Load generation.
	{Name: "AIPERF_PACER", Default: "automatic", Meaning: "\"spin\" picks the timer-then-spin sleeper for fast request rates (for side-by-side measurements)", Users: "benchmark"},
	{Name: "AIPERF_PACER_QUANTUM", Default: "the scheduler's quantum", Meaning: "Go duration within which due credits go out together", Users: "benchmark"},
	{Name: "GOGC", Meaning: "Go's garbage collector target; when set, aiperf leaves the collector as given for many streams", Users: "connbudget"},
	{Name: "GOMEMLIMIT", Meaning: "Go's memory limit; when set, aiperf leaves the collector as given for many streams", Users: "connbudget"},

	// Datasets and tokenizers.
	{Name: "AIPERF_DATASET_BASETEN_SESSION_COLUMN", Default: "provided_session_id", Meaning: "column of a baseten_trace that names the session when it has both", Users: "benchmark"},
	{Name: "AIPERF_DATASET_CACHE_DIR", Default: ".cache/aiperf/datasets", Meaning: "where downloaded public dataset files (SPEED-Bench) are kept", Users: "dataset/public"},
	{Name: "AIPERF_CORPUS_COUNT_CACHE", Default: "$XDG_CACHE_HOME/aiperf-go/corpus-counts", Meaning: "directory of cached corpus token counts; \"off\" disables the cache", Users: "dataset/synthesis"},
	{Name: "HF_TOKEN", Meaning: "Hugging Face token for gated or private tokenizers and datasets", Users: "tokenizer/hub", Secret: true},
	{Name: "HUGGING_FACE_HUB_TOKEN", Meaning: "older name of HF_TOKEN", Users: "tokenizer/hub", Secret: true},
	{Name: "HF_TOKEN_PATH", Default: "$HF_HOME/token", Meaning: "file holding the Hugging Face token", Users: "tokenizer/hub"},
	{Name: "HF_ENDPOINT", Default: "https://huggingface.co", Meaning: "Hugging Face Hub to download from", Users: "tokenizer/hub"},
	{Name: "HF_HOME", Default: "$XDG_CACHE_HOME/huggingface", Meaning: "root of the Hugging Face cache and token", Users: "tokenizer/hub"},
	{Name: "HF_HUB_CACHE", Default: "$HF_HOME/hub", Meaning: "Hugging Face Hub cache directory", Users: "tokenizer/hub"},
	{Name: "HUGGINGFACE_HUB_CACHE", Meaning: "older name of HF_HUB_CACHE", Users: "tokenizer/hub"},
	{Name: "HF_HUB_OFFLINE", Default: "false", Meaning: "true reads only the cache, never the network", Users: "tokenizer/hub, dataset/public"},
	{Name: "TRANSFORMERS_OFFLINE", Meaning: "as HF_HUB_OFFLINE when that is empty", Users: "tokenizer/hub"},
	{Name: "XDG_CACHE_HOME", Default: "~/.cache", Meaning: "base of the caches (Hugging Face, corpus counts)", Users: "tokenizer/hub, dataset/synthesis"},
	{Name: "HOME", Meaning: "home directory: ~/.cache, ~/.aws, the kube and report settings", Users: "tokenizer, sigv4, kubecli, report"},

	// Endpoints and credentials.
	{Name: "OPENAI_API_KEY", Meaning: "`aiperf chat`'s API key when --api-key is not given", Users: "cli", Secret: true},
	{Name: "AWS_ACCESS_KEY_ID", Meaning: "AWS access key for SigV4 signing", Users: "sigv4"},
	{Name: "AWS_SECRET_ACCESS_KEY", Meaning: "AWS secret key for SigV4 signing", Users: "sigv4", Secret: true},
	{Name: "AWS_SESSION_TOKEN", Meaning: "AWS session token for SigV4 signing", Users: "sigv4", Secret: true},
	{Name: "AWS_PROFILE", Default: "default", Meaning: "profile of the AWS shared files", Users: "sigv4"},
	{Name: "AWS_SHARED_CREDENTIALS_FILE", Default: "~/.aws/credentials", Meaning: "AWS shared credentials file", Users: "sigv4"},
	{Name: "AWS_CONFIG_FILE", Default: "~/.aws/config", Meaning: "AWS shared config file", Users: "sigv4"},
	{Name: "AWS_CONTAINER_CREDENTIALS_FULL_URI", Meaning: "container credentials endpoint (ECS, EKS Pod Identity)", Users: "sigv4"},
	{Name: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", Meaning: "container credentials path on the ECS endpoint", Users: "sigv4"},
	{Name: "AWS_CONTAINER_AUTHORIZATION_TOKEN", Meaning: "token sent to the container credentials endpoint", Users: "sigv4", Secret: true},
	{Name: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", Meaning: "file holding that token", Users: "sigv4"},
	{Name: "AWS_REGION", Default: "us-east-1", Meaning: "region of s3:// inputs (AWS_DEFAULT_REGION when unset)", Users: "remote"},
	{Name: "AWS_DEFAULT_REGION", Default: "us-east-1", Meaning: "region of s3:// inputs when AWS_REGION is unset", Users: "remote"},
	{Name: "AWS_ENDPOINT_URL_S3", Meaning: "S3-compatible endpoint of s3:// inputs, addressed path-style (MinIO, ...)", Users: "remote"},
	{Name: "AWS_ENDPOINT_URL", Meaning: "endpoint of s3:// inputs when AWS_ENDPOINT_URL_S3 is unset", Users: "remote"},

	// Integrations.
	{Name: "AIPERF_API_SERVER_LINGER_SECONDS", Default: "0", Meaning: "seconds the --api-port server stays up after the run", Users: "cli, kube"},
	{Name: "AIPERF_OTEL_FLUSH_INTERVAL_SECONDS", Default: "2", Meaning: "seconds between OpenTelemetry and live MLflow exports", Users: "cli"},
	{Name: "AIPERF_OTEL_REQUEST_TIMEOUT_SECONDS", Default: "10", Meaning: "timeout of one OpenTelemetry export", Users: "cli"},
	{Name: "AIPERF_MLFLOW_EXPORT_TIMEOUT_SECONDS", Default: "120", Meaning: "timeout of the MLflow export after the run", Users: "cli"},
	{Name: "AIPERF_WANDB_EXPORT_TIMEOUT_SECONDS", Default: "120", Meaning: "timeout of the Weights & Biases export after the run", Users: "cli"},
	{Name: "MLFLOW_TRACKING_TOKEN", Meaning: "MLflow bearer token", Users: "mlflow", Secret: true},
	{Name: "MLFLOW_TRACKING_USERNAME", Meaning: "MLflow basic-auth user", Users: "mlflow"},
	{Name: "MLFLOW_TRACKING_PASSWORD", Meaning: "MLflow basic-auth password", Users: "mlflow", Secret: true},
	{Name: "WANDB_API_KEY", Meaning: "Weights & Biases API key", Users: "wandb", Secret: true},
	{Name: "WANDB_BASE_URL", Default: "https://api.wandb.ai", Meaning: "Weights & Biases server", Users: "wandb"},
	{Name: "AIPERF_SERVICE_HEALTH_PORT", Meaning: "health probe port of `aiperf service` when --health-port is not given", Users: "cli"},
	{Name: "AIPERF_SERVICE_HEALTH_HOST", Meaning: "health probe host of `aiperf service`, with AIPERF_SERVICE_HEALTH_PORT", Users: "cli"},
	{Name: "AIPERF_API_KEY", Meaning: "the API key aiperf kube passes into the benchmark pod from its Secret", Users: "kube"},
	{Name: "AIPERF_HEADER_", Prefix: true, Meaning: "AIPERF_HEADER_<N>: one -H header aiperf kube passes into the benchmark pod from its Secret", Users: "kube"},
	{Name: "KUBECONFIG", Default: "~/.kube/config", Meaning: "cluster of aiperf kube (read by client-go)", Users: "kubecli"},

	// Profiling the benchmark itself.
	{Name: "AIPERF_CPU_PROFILE", Meaning: "path: write a Go CPU profile of the command there", Users: "cli"},
	{Name: "AIPERF_HEAP_PROFILE", Meaning: "path: write a Go heap profile of the command there", Users: "cli"},
	{Name: "AIPERF_HEAP_PROFILE_AFTER", Default: "at exit", Meaning: "Go duration after start at which the heap profile is taken", Users: "cli"},

	// Tests and their helper packages.
	{Name: "AIPERF_TEST_MODELS", Default: "$XDG_CACHE_HOME/aiperf-go/test-models", Meaning: "where the tokenizer test models are fetched", Users: "tokenizer/testmodels", Test: true},
	{Name: "AIPERF_REQUIRE_", Prefix: true, Meaning: "AIPERF_REQUIRE_<TOOL>=1 makes a test that lacks the tool fail instead of skip (.ci/run sets them)", Users: "testenv", Test: true},
	{Name: "AIPERF_TEST_RUN_AS_MAIN", Meaning: "1: the test binary runs `aiperf` instead of its tests (the end-to-end tests re-execute it)", Users: "cli/clitest", Test: true},
	{Name: "AIPERF_ENVTEST", Meaning: "set: run the tests against a real kube-apiserver", Users: "kube/kubetest", Test: true},
	{Name: "KUBEBUILDER_ASSETS", Meaning: "directory of the etcd and kube-apiserver binaries for AIPERF_ENVTEST", Users: "kube/kubetest", Test: true},
}
