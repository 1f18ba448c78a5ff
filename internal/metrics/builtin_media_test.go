package metrics

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TestMediaMetricsMatchAIPerf compares the modality metrics with AIPerf
// 0.13's classes (testdata/aiperf013_media_metrics.json, generated from the
// installed AIPerf's NumImagesMetric, ImageThroughputMetric,
// ImageLatencyMetric, AudioDurationMetric and RTFxMetric).
func TestMediaMetricsMatchAIPerf(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf013_media_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs []aiperfDef
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs) != 5 {
		t.Fatalf("%d definitions in the fixture, want 5", len(defs))
	}
	groups := map[string]Group{"default": GroupDefault, "none": GroupNone}
	reg := Builtin()
	for _, d := range defs {
		m, ok := reg.Lookup(d.Tag)
		if !ok {
			t.Errorf("metric %q is missing", d.Tag)
			continue
		}
		for _, c := range []struct {
			field     string
			got, want any
		}{
			{"Header", m.Header, d.Header},
			{"ShortHeader", m.ShortHeader, d.ShortHeader},
			{"Kind", m.Kind.String(), d.Kind},
			{"Unit", string(m.Unit), d.Unit},
			{"DisplayUnit", string(m.displayUnit()), d.DisplayUnit},
			{"Flags", m.Flags, d.Flags},
			{"Order", m.Order, d.Order},
			{"Group", m.Group, groups[d.Group]},
			{"Requires", sortedCopy(m.Requires), sortedCopy(d.Requires)},
			{"Integer", m.Integer, d.ValueType == "int"},
		} {
			if !equalAny(c.got, c.want) {
				t.Errorf("%s.%s = %v; want %v (AIPerf 0.13)", d.Tag, c.field, c.got, c.want)
			}
		}
	}
}

// TestMediaMetricValues checks each formula on records that carried
// images and audio, and that text-only or failed records get none.
func TestMediaMetricValues(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := chatStreaming(false)
	sel.SupportsImages, sel.SupportsAudio = true, true
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = reg.Select(sel) })

	// Sent at 10 ms, content at 20, 30 and 60 ms: request latency 50 ms.
	rec := func(images int, audio float64) *record.Record {
		r := streamRec(10, 1, 20, 30, 60)
		r.Images, r.AudioSeconds = images, audio
		return r
	}
	failed := rec(2, 3)
	failed.Error = record.HTTPError(500, "Internal Server Error", "boom")
	nan := rec(0, math.NaN())

	tests := []struct {
		name string
		r    *record.Record
		want map[string]float64 // absent tags must have no value
	}{
		{"two images and 0.2 s of audio", rec(2, 0.2), map[string]float64{
			"num_images": 2, "image_throughput": 40, "image_latency": 25,
			"audio_duration": 0.2, "rtfx": 4,
		}},
		{"one image", rec(1, 0), map[string]float64{"num_images": 1, "image_throughput": 20, "image_latency": 50}},
		{"audio only", rec(0, 0.05), map[string]float64{"audio_duration": 0.05, "rtfx": 1}},
		{"text only", rec(0, 0), nil},
		{"non-finite audio duration", nan, nil},
		{"failed request", failed, nil},
	}
	tags := []string{"num_images", "image_throughput", "image_latency", "audio_duration", "rtfx"}
	for _, tt := range tests {
		p := proc.Process(tt.r)
		for _, tag := range tags {
			v, ok := valueOf(p, tag)
			want, wantOK := tt.want[tag]
			if ok != wantOK || (ok && !approx(v.Scalar, want)) {
				t.Errorf("%s: %s = %v (present %v); want %v (present %v)", tt.name, tag, v.Scalar, ok, want, wantOK)
			}
		}
	}
}

// TestMediaMetricsSelection: the metrics apply only to endpoints that send
// media (chat), as AIPerf's capability filter decides.
func TestMediaMetricsSelection(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	has := func(sel Selection, tag string) bool {
		for _, m := range reg.Select(sel) {
			if m.Tag == tag {
				return true
			}
		}
		return false
	}
	completions := Selection{ProducesTokens: true, TokenizesInput: true}
	chat := completions
	chat.SupportsImages, chat.SupportsAudio = true, true
	for _, tag := range []string{"num_images", "image_throughput", "image_latency", "audio_duration", "rtfx"} {
		if has(completions, tag) {
			t.Errorf("%s selected for an endpoint without media", tag)
		}
		if !has(chat, tag) {
			t.Errorf("%s not selected for an endpoint with images and audio", tag)
		}
	}
}
