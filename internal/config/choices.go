package config

import "strings"

// EndpointType names the API a benchmark talks to (--endpoint-type). Values
// are AIPerf's snake_case enum values.
type EndpointType string

// Endpoint types: every one AIPerf 0.13 accepts.
const (
	EndpointChat               EndpointType = "chat"
	EndpointCompletions        EndpointType = "completions"
	EndpointAudioTranscription EndpointType = "audio_transcription"
	EndpointCohereRankings     EndpointType = "cohere_rankings"
	EndpointResponses          EndpointType = "responses"
	EndpointMessages           EndpointType = "messages"
	EndpointChatEmbeddings     EndpointType = "chat_embeddings"
	EndpointEmbeddings         EndpointType = "embeddings"
	EndpointHFTEIRankings      EndpointType = "hf_tei_rankings"
	EndpointHuggingFaceGen     EndpointType = "huggingface_generate"
	EndpointImageGeneration    EndpointType = "image_generation"
	EndpointImageEdit          EndpointType = "image_edit"
	EndpointVideoGeneration    EndpointType = "video_generation"
	EndpointImageRetrieval     EndpointType = "image_retrieval"
	EndpointNIMEmbeddings      EndpointType = "nim_embeddings"
	EndpointNIMRankings        EndpointType = "nim_rankings"
	EndpointSolidoRAG          EndpointType = "solido_rag"
	EndpointRaw                EndpointType = "raw"
	EndpointTemplate           EndpointType = "template"
)

// SupportedEndpointTypes lists the endpoint types this implementation can
// benchmark, in help order: all of AIPerfEndpointTypes.
func SupportedEndpointTypes() []EndpointType { return AIPerfEndpointTypes() }

// AIPerfEndpointTypes lists every endpoint type AIPerf 0.13 accepts, in
// AIPerf's help order.
func AIPerfEndpointTypes() []EndpointType {
	return []EndpointType{
		EndpointAudioTranscription, EndpointChat, EndpointCohereRankings,
		EndpointCompletions, EndpointResponses, EndpointMessages,
		EndpointChatEmbeddings, EndpointEmbeddings, EndpointHFTEIRankings,
		EndpointHuggingFaceGen, EndpointImageGeneration, EndpointImageEdit,
		EndpointVideoGeneration, EndpointImageRetrieval, EndpointNIMEmbeddings,
		EndpointNIMRankings, EndpointSolidoRAG, EndpointRaw, EndpointTemplate,
	}
}

// Supported reports whether t can be benchmarked by this implementation.
func (t EndpointType) Supported() bool { return contains(SupportedEndpointTypes(), t) }

// Known reports whether t is one of AIPerf's endpoint types.
func (t EndpointType) Known() bool { return contains(AIPerfEndpointTypes(), t) }

// ArrivalPattern is how request-rate mode spaces its requests
// (--arrival-pattern). The empty value means "not given"; see
// Config.ArrivalPattern for the resolved pattern.
type ArrivalPattern string

// Arrival patterns, AIPerf's values.
const (
	ArrivalConcurrencyBurst ArrivalPattern = "concurrency_burst"
	ArrivalConstant         ArrivalPattern = "constant"
	ArrivalGamma            ArrivalPattern = "gamma"
	ArrivalPoisson          ArrivalPattern = "poisson"
)

// ArrivalPatterns lists the valid --arrival-pattern values in help order.
func ArrivalPatterns() []ArrivalPattern {
	return []ArrivalPattern{ArrivalConcurrencyBurst, ArrivalConstant, ArrivalGamma, ArrivalPoisson}
}

// ExportLevel selects which files a run writes (--export-level).
type ExportLevel string

// Export levels: each includes the files of the one before it.
const (
	// ExportSummary writes only the aggregate CSV and JSON.
	ExportSummary ExportLevel = "summary"
	// ExportRecords adds the per-request profile_export.jsonl (the default).
	ExportRecords ExportLevel = "records"
	// ExportRaw adds the raw request/response profile_export_raw.jsonl.
	ExportRaw ExportLevel = "raw"
)

// ExportLevels lists the valid --export-level values in help order.
func ExportLevels() []ExportLevel { return []ExportLevel{ExportSummary, ExportRecords, ExportRaw} }

// UIType selects the live progress display (--ui-type). The empty value
// means "not given"; see Config.UIType for the resolved display.
type UIType string

// UI types, AIPerf's values.
const (
	UIDashboard UIType = "dashboard"
	UISimple    UIType = "simple"
	UINone      UIType = "none"
)

// UITypes lists the valid --ui-type values in help order.
func UITypes() []UIType { return []UIType{UIDashboard, UINone, UISimple} }

// LogLevel is a logging threshold (--log-level). Values are upper case, as
// AIPerf spells them.
type LogLevel string

// Log levels from most to least verbose, AIPerf's set.
const (
	LogTrace    LogLevel = "TRACE"
	LogDebug    LogLevel = "DEBUG"
	LogInfo     LogLevel = "INFO"
	LogNotice   LogLevel = "NOTICE"
	LogWarning  LogLevel = "WARNING"
	LogSuccess  LogLevel = "SUCCESS"
	LogError    LogLevel = "ERROR"
	LogCritical LogLevel = "CRITICAL"
)

// LogLevels lists the valid --log-level values from most to least verbose.
func LogLevels() []LogLevel {
	return []LogLevel{LogTrace, LogDebug, LogInfo, LogNotice, LogWarning, LogSuccess, LogError, LogCritical}
}

// NormalizeChoice canonicalises a user-typed enum value the way AIPerf
// matches its choices: surrounding space trimmed, lower case, '-' read as
// '_' (AIPerf's help prints "concurrency-burst" while its docs and JSON use
// "concurrency_burst"; both are accepted). Log levels are upper-cased by
// NormalizeLogLevel instead.
func NormalizeChoice(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

// NormalizeLogLevel canonicalises a --log-level value: trimmed, upper case.
func NormalizeLogLevel(s string) LogLevel {
	return LogLevel(strings.ToUpper(strings.TrimSpace(s)))
}

// contains reports whether v is in list.
func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// joinChoices renders choices as "a, b, c" for error messages.
func joinChoices[T ~string](list []T) string {
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

// WaitForModelMode is how the endpoint's readiness is probed before a run
// (--wait-for-model-mode).
type WaitForModelMode string

// Readiness probes, AIPerf's values.
const (
	// WaitForModels polls GET /v1/models until the model is listed.
	WaitForModels WaitForModelMode = "models"
	// WaitForInference sends a one-token inference request until it succeeds.
	WaitForInference WaitForModelMode = "inference"
	// WaitForBoth runs the models check, then the inference check.
	WaitForBoth WaitForModelMode = "both"
)

// WaitForModelModes lists the valid --wait-for-model-mode values in help order.
func WaitForModelModes() []WaitForModelMode {
	return []WaitForModelMode{WaitForModels, WaitForInference, WaitForBoth}
}
