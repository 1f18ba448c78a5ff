package metrics

// UnitMB is megabytes, AIPerf's MetricSizeUnit.MEGABYTES tag.
const UnitMB Unit = "MB"

// videoMetrics are the server's own figures of a video generation job
// (SGLang's inference_time_s and peak_memory_mb), for endpoints that
// produce video (PRODUCES_VIDEO_ONLY). A record has a value when a
// response reported it; the first response that did is used, as in AIPerf.
func videoMetrics() []*Metric {
	return []*Metric{
		{
			Tag: "video_inference_time", Header: "Video Inference Time", ShortHeader: "Inference Time",
			Kind: KindRecord, Unit: UnitSec, DisplayUnit: UnitMS,
			Flags: FlagProducesVideoOnly, Order: 310,
			record: func(c *recordContext) (float64, bool) {
				return c.video.InferenceSeconds.V, c.video.InferenceSeconds.OK
			},
		},
		{
			Tag: "video_peak_memory", Header: "Video Peak Memory", ShortHeader: "Peak Memory",
			Kind: KindRecord, Unit: UnitMB,
			Flags: FlagProducesVideoOnly, Order: 311,
			record: func(c *recordContext) (float64, bool) {
				return c.video.PeakMemoryMB.V, c.video.PeakMemoryMB.OK
			},
		},
	}
}
