package agenticcode

import (
	"html/template"
	"math"
	"path/filepath"
)

// simulationPage is simulation.html's content.
type simulationPage struct {
	R        SimResult
	Sessions int
	Summary  [][2]string
	Charts   []template.HTML
}

var simulationTemplate = pageTemplate("Serving Simulation", `<div class="meta">{{.Sessions}} sessions replayed at concurrency {{.R.Params.Concurrency}} · prefill {{.R.Params.PrefillTPS}} tokens/s (one at a time) · decode {{.R.Params.DecodeTPS}} tokens/s per request · KV cache {{.R.Params.KVCapacityGB}} GB at {{.R.Params.KVBytesPerToken}} bytes/token · written by aiperf synthesize agentic-code</div>
<h2>Outcome</h2>
<table><tr><th>Quantity</th><th>Value</th></tr>
{{range .Summary}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>
<h2>Over time</h2>
<div class="grid">{{range .Charts}}<div>{{.}}</div>{{end}}</div>`)

// writeSimulation writes simulation.html: the dataset's rows (rowIDs, as
// dataset.jsonl holds them) replayed through Simulate with
// DefaultSimParams, as summary figures and time series charts.
func writeSimulation(dir string, sessions []Session, rowIDs [][][]int, c *Config) error {
	r := Simulate(sessions, rowIDs, c, DefaultSimParams)
	p := simulationPage{R: r, Sessions: len(sessions)}
	p.Summary = [][2]string{
		{"Simulated time", fixed(r.MaxTimeMs/60000, 1, true) + " min"},
		{"Turns", fixed(float64(r.Turns), 0, true)},
		{"Mean time to first token (queue + prefill)", fixed(r.AvgTTFTMs, 1, true) + " ms"},
		{"Mean wait for the prefill engine", fixed(r.PrefillWaits/math.Max(1, float64(r.Turns)), 1, true) + " ms"},
		{"KV cache hit rate (tokens)", fixed(100*r.HitRate, 1, false) + "%"},
		{"Session evictions", fixed(float64(r.Evictions), 0, true)},
	}
	var t, active, queued, kv, hit, inTok, evicted []float64
	for _, pt := range r.Points {
		t = append(t, pt.TimeS/60)
		active, queued = append(active, float64(pt.ActiveRequests)), append(queued, float64(pt.Queued))
		kv, inTok = append(kv, pt.KVCacheGB), append(inTok, float64(pt.InputTokens))
		evicted = append(evicted, float64(pt.EvictedBlocks))
		rate := 0.0
		if n := pt.HitTokens + pt.MissTokens; n > 0 {
			rate = float64(pt.HitTokens) / float64(n)
		}
		hit = append(hit, rate)
	}
	p.Charts = []template.HTML{
		linesSVG("Requests in flight", "time (min)", "requests", []line{{Name: "in flight", X: t, Y: active, Step: true}}, float64(r.Params.Concurrency), "concurrency"),
		linesSVG("Input tokens in flight", "time (min)", "tokens", []line{{Name: "input tokens", X: t, Y: inTok, Step: true}}, math.NaN(), ""),
		linesSVG("KV cache used", "time (min)", "GB", []line{{Name: "KV cache", X: t, Y: kv, Step: true}}, r.Params.KVCapacityGB, "capacity"),
		linesSVG("Cumulative KV cache hit rate", "time (min)", "fraction of tokens", []line{{Name: "hit rate", X: t, Y: hit}}, math.NaN(), ""),
		linesSVG("Sessions waiting to start", "time (min)", "sessions", []line{{Name: "queued", X: t, Y: queued, Step: true}}, math.NaN(), ""),
		linesSVG("Blocks evicted (cumulative)", "time (min)", "blocks", []line{{Name: "evicted", X: t, Y: evicted, Step: true}}, math.NaN(), ""),
	}
	return writePage(filepath.Join(dir, "simulation.html"), simulationTemplate, p)
}
