package option

// Help groups of `aiperf profile`. The names are AIPerf's panel titles
// where AIPerf has the panel.
const (
	GroupEndpoint       = "Endpoint"
	GroupInput          = "Input"
	GroupConv           = "Conversation Input"
	GroupTok            = "Tokenizer"
	GroupISL            = "Input Sequence Length (ISL)"
	GroupOSL            = "Output Sequence Length (OSL)"
	GroupPrompt         = "Prompt"
	GroupPrefix         = "Prefix Prompt"
	GroupCacheBust      = "Cache Bust"
	GroupRankings       = "Rankings"
	GroupSynthesis      = "Synthesis"
	GroupAudio          = "Audio Input"
	GroupImage          = "Image Input"
	GroupVideo          = "Video Input"
	GroupLoad           = "Load Generator"
	GroupFixed          = "Fixed Schedule"
	GroupWarmup         = "Warmup"
	GroupUserCentric    = "User-Centric Rate"
	GroupGoodput        = "Goodput"
	GroupOutput         = "Output"
	GroupUI             = "UI"
	GroupService        = "Service"
	GroupAccuracy       = "Accuracy"
	GroupNetwork        = "Network"
	GroupHTTPTrace      = "HTTP Trace"
	GroupNetworkLatency = "Network Latency"
	GroupServerMetrics  = "Server Metrics"
	GroupGPUTelemetry   = "GPU Telemetry"
	GroupMultiRun       = "Multi-Run"
	GroupAnalysis       = "Analysis"
	GroupCluster        = "Scale-out"
	GroupScenario       = "Scenario"
	GroupWorkers        = "Workers"
	GroupZMQ            = "ZMQ Communication"
)

// Groups lists the help groups in print order. Scenario, Workers and ZMQ
// Communication are not listed: help prints them after these, in the order
// of their first option.
func Groups() []string {
	return []string{
		GroupEndpoint, GroupInput, GroupConv, GroupTok, GroupISL, GroupOSL, GroupPrompt, GroupPrefix, GroupCacheBust, GroupRankings, GroupSynthesis, GroupAudio, GroupImage, GroupVideo,
		GroupLoad, GroupFixed, GroupWarmup, GroupUserCentric, GroupGoodput, GroupOutput, GroupUI, GroupService, GroupAccuracy, GroupNetwork, GroupHTTPTrace, GroupNetworkLatency, GroupServerMetrics, GroupGPUTelemetry, GroupMultiRun, GroupAnalysis, GroupCluster,
	}
}
