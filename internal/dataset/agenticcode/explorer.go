package agenticcode

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var explorerTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("explorer").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Cache Explorer</title><style>{{.CSS}}
#turns{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:12px}
.turn{display:flex;align-items:center;margin:2px 0;font-size:12px}.turn .lbl{width:150px;color:#555;flex:none}
.bar{display:flex;height:14px;flex:auto;background:#fafafa}.seg{height:100%}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px;vertical-align:middle}
select{font-size:14px;padding:2px 6px}</style></head><body>
<h1>Cache Explorer</h1>
<div class="meta">Each turn's hash-id blocks by layer and cache status ({{.BlockSize}} tokens per block; L1 {{.L1}} blocks, L1.5 {{.L15}} blocks), for the first {{.Count}} sessions of cache_structure.json. A row is as long as the turn's context.</div>
<p><label>Session <select id="session"></select></label>
<span class="key"><span style="background:#1f77b4"></span>L1 (global) <span style="background:#9467bd"></span>L1.5 (group) <span style="background:#76b900"></span>L2 cached (carried) <span style="background:#bcbd22"></span>L2 new <span style="background:#ff7f0e"></span>L3 new (history)</span></p>
<div id="summary" class="meta"></div>
<div id="turns"></div>
<script id="data" type="application/json">{{.Data}}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  var colour = {"L1/cached": "#1f77b4", "L1.5/cached": "#9467bd", "L2/cached": "#76b900", "L2/new": "#bcbd22", "L3/new": "#ff7f0e"};
  var pick = document.getElementById("session"), out = document.getElementById("turns"), sum = document.getElementById("summary");
  data.sessions.forEach(function (s, i) {
    var o = document.createElement("option");
    o.value = i; o.textContent = s.session_id + " (" + s.turns.length + " turns)";
    pick.appendChild(o);
  });
  function draw() {
    var s = data.sessions[pick.value];
    out.textContent = "";
    if (!s) { return; }
    var most = 1, cached = 0, all = 0;
    s.turns.forEach(function (t) { most = Math.max(most, t.num_blocks); });
    s.turns.forEach(function (t) {
      var row = document.createElement("div"), lbl = document.createElement("div"), bar = document.createElement("div");
      row.className = "turn"; lbl.className = "lbl"; bar.className = "bar";
      lbl.textContent = "turn " + t.turn_index + " · " + t.num_blocks + " blocks";
      bar.style.maxWidth = (100 * t.num_blocks / most) + "%";
      t.segments.forEach(function (g) {
        var d = document.createElement("div"), key = g.layer + "/" + g.status;
        d.className = "seg";
        d.style.width = (100 * g.count / Math.max(t.num_blocks, 1)) + "%";
        d.style.background = colour[key] || "#999";
        d.title = key + ": blocks " + g.start + "–" + (g.start + g.count - 1) + " (" + g.count + ")";
        bar.appendChild(d);
        all += g.count;
        if (g.status === "cached") { cached += g.count; }
      });
      row.appendChild(lbl); row.appendChild(bar); out.appendChild(row);
    });
    sum.textContent = s.turns.length + " turns, " + all + " blocks sent, " + (all ? (100 * cached / all).toFixed(1) : "0") + "% of them cached from the previous turn or the shared prefix";
  }
  pick.addEventListener("change", draw);
  draw();
})();
</script></body></html>
`))
})

// writeExplorer writes cache_explorer.html: cache_structure.json inlined
// and a viewer drawing each turn's blocks by layer and status.
func writeExplorer(dir string, structure obj) error {
	data := document(structure)
	var count int
	if s, ok := structure.lookup("sessions").([]any); ok {
		count = len(s)
	}
	p := struct {
		CSS           template.CSS
		Data          template.JS
		BlockSize, L1 any
		L15           any
		Count         int
	}{CSS: template.CSS(chartCSS), Data: template.JS(strings.ReplaceAll(string(data), "</", `<\/`)),
		BlockSize: structure.lookup("block_size"), L1: structure.lookup("l1_blocks"), L15: structure.lookup("l15_blocks"), Count: count}
	var b bytes.Buffer
	if err := explorerTemplate().Execute(&b, p); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "cache_explorer.html"), b.Bytes(), 0o644)
}
